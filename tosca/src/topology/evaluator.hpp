#pragma once

#include "topology/model.hpp"
#include "types/type_registry.hpp"
#include "util/diag_sink.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace orch::tosca {

/// The result of evaluating a value: the value with every function that could be computed
/// replaced, and whether nothing is left to compute after deployment.
struct Evaluated {
    const yaml::Node* value = nullptr;
    bool resolved = true;
};

/// Where a value is evaluated: SELF, SOURCE/TARGET (relationships) and whether it is an output.
/// Where get_property / get_attribute arguments [entity, a, (b,) ...] lead on one node: its own
/// property (or attribute) a, b of its capability a, or b through its requirement a (the target's
/// own, or of the capability the requirement reached).
struct ValueSite {
    const NodeTemplate* node = nullptr;  ///< the node holding the value (a requirement's target)
    std::string capability;              ///< "" for the node's own
    const PropertyDef* def = nullptr;    ///< null: not found (`missing` says why) or `unbound`
    std::size_t next = 2;                ///< the first argument that indexes the value
    bool unbound = false;                ///< through a requirement bound to no template
    std::string missing;
};

/// "a" or "a.b" of get_property / get_attribute arguments [entity, a, (b,) ...], for messages.
std::string ArgsPath(const yaml::Node& args);

struct EvalScope {
    const NodeTemplate* self = nullptr;
    const NodeTemplate* source = nullptr;
    const NodeTemplate* target = nullptr;
    bool in_outputs = false;
    const RequirementAssignment* relationship = nullptr;  ///< SELF inside a relationship
};

/// Checks and evaluates TOSCA intrinsic functions: get_input (with the user's inputs),
/// get_property (SELF, SOURCE, TARGET, HOST, a node; capabilities and requirements; nested
/// indexes), concat, join, token, get_nodes_of_type; get_attribute, get_operation_output and
/// get_artifact are checked statically and kept for after deployment. get_property chains are
/// memoised and their cycles reported ("Circular reference between functions").
class Evaluator {
   public:
    Evaluator(
        Topology& topology,
        const TypeRegistry& types,
        yaml::Arena& scratch,
        DiagSink& sink,
        bool strict,
        bool inputs_given,
        int max_depth
    )
        : topology_(topology),
          types_(types),
          scratch_(scratch),
          sink_(sink),
          strict_(strict),
          inputs_given_(inputs_given),
          max_depth_(max_depth) {}

    Evaluated Evaluate(const yaml::Node& value, const EvalScope& scope, const Path& path);

    /// What get_input and get_property results may add up to, in bytes of text plus
    /// yaml::LoadLimits::kAliasNodeWeight per node: each reference shares the value, but the
    /// spec copies it once per reference, so a large input referenced thousands of times would
    /// amplify the request as YAML aliases would. Past it, a function is an error.
    void set_copy_budget(std::uint64_t bytes) { copy_budget_ = bytes; }

    /// The evaluated value of a node's property (capability = "" for the node's own), from the
    /// template or the type's default; memoised. value is null when the property has none.
    Evaluated Property(
        const NodeTemplate& node, const std::string& capability, const std::string& property, const Path& path
    );

   private:
    Evaluated EvaluateFunction(std::string_view name, const yaml::Node& call, const EvalScope& scope, const Path& path);
    Evaluated GetInput(const yaml::Node& call, const yaml::Node& args, const Path& path);
    Evaluated GetProperty(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path);
    Evaluated GetAttribute(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path);
    Evaluated Concat(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path);
    Evaluated Join(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path);
    Evaluated Token(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path);
    Evaluated GetNodesOfType(const yaml::Node& call, const yaml::Node& args, const Path& path);
    Evaluated GetArtifact(const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path);
    Evaluated GetOperationOutput(
        const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path
    );

    /// SELF / SOURCE / TARGET / HOST / a node template name → the node; reports when impossible.
    const NodeTemplate* Entity(
        const yaml::Node& arg, const EvalScope& scope, bool allow_host, const std::string& function, const Path& path
    );
    /// Applies list indexes / map keys args[first..] to a resolved value.
    /// On failure (reported) the unresolved `call` is returned, so the value is not checked again.
    Evaluated Index(
        Evaluated base,
        const yaml::Node& call,
        const yaml::Node& args,
        std::size_t first,
        const std::string& function,
        const Path& path
    );
    const yaml::Node* CapabilityAssignment(const NodeTemplate& node, const std::string& capability) const;
    Evaluated RelationshipProperty(
        const RequirementAssignment& rel,
        const yaml::Node& call,
        const yaml::Node& args,
        const EvalScope& scope,
        const Path& path
    );
    const PropertyDef* FindPropertyDef(
        const NodeTemplate& node, const std::string& capability, const std::string& property
    ) const;
    /// An attribute of the node (properties are attributes too) or, with `capability`, of that
    /// capability: the node type's refinement, then the capability type's, then its properties.
    const PropertyDef* FindAttributeDef(
        const NodeTemplate& node, const std::string& capability, const std::string& attribute
    ) const;
    /// Where args (all scalars, at least two) lead on `node`; see ValueSite.
    ValueSite Locate(const NodeTemplate& node, const yaml::Node& args, bool attribute) const;
    /// HOST: the first node up the HostedOn chain from `host` (inclusive) where args lead
    /// somewhere (spec 1.3 §4.4.2: search until a match is found or the chain ends); null if none.
    const NodeTemplate* HostHolding(const NodeTemplate* host, const yaml::Node& args, bool attribute) const;
    /// Counts `result` against the copy budget; false (reported once) when it is spent.
    bool Charge(const Evaluated& result, const yaml::Node& call, const Path& path);

    void Fail(const yaml::Node& at, const Path& path, std::string message) {
        sink_.Error(DiagnosticCode::kFunction, &at, path, std::move(message));
    }

    enum class State { kInProgress, kDone };
    struct Memo {
        State state = State::kInProgress;
        Evaluated result;
    };

    Topology& topology_;
    const TypeRegistry& types_;
    yaml::Arena& scratch_;
    DiagSink& sink_;
    bool strict_;
    bool inputs_given_;
    int max_depth_;
    int depth_ = 0;
    std::uint64_t copy_budget_ = UINT64_MAX;
    std::uint64_t copied_ = 0;
    bool copy_budget_reported_ = false;
    std::map<std::tuple<const NodeTemplate*, std::string, std::string>, Memo> memo_;
};

}  // namespace orch::tosca
