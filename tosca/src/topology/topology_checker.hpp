#pragma once

#include "topology/evaluator.hpp"
#include "topology/model.hpp"
#include "tosca/engine.hpp"
#include "util/grammar.hpp"
#include "values/value_checker.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace orch::tosca {

/// Reads and validates a topology_template against the types: inputs (with the user's values),
/// node templates (properties, capabilities, requirements bound to targets, artifacts,
/// interfaces), relationship templates, groups, policies and outputs, evaluating functions
/// and detecting requirement cycles. Every finding goes to the sink.
class TopologyChecker {
   public:
    TopologyChecker(
        const TypeRegistry& types,
        const EngineOptions& options,
        DiagSink& sink,
        yaml::Arena& scratch,
        const std::optional<Json>& user_inputs
    );

    void Run(const yaml::Node* topology);
    /// Some import could not be read: unknown type names say they may come from it.
    void set_imports_incomplete(bool incomplete) { imports_incomplete_ = incomplete; }
    /// The template's TOSCA minor version: newer grammar keys are reported (CheckKeyVersion).
    void set_version_minor(int minor) { ctx_.minor = minor; }
    /// See Evaluator::set_copy_budget.
    void set_copy_budget(std::uint64_t bytes) { evaluator_.set_copy_budget(bytes); }
    const Topology& topology() const { return topology_; }
    /// Parameters accepted earlier (TemplateRequest::accepted_parameters); null: none.
    void set_accepted_parameters(const Json* accepted) { accepted_parameters_ = accepted; }
    /// Parameters that are no input but were let through because accepted_parameters named them.
    const std::vector<std::string>& accepted_unknown_parameters() const { return accepted_unknown_; }

   private:
    using ValueFn = std::function<Evaluated(const PropertyDef& def, const yaml::Node* raw, const Path& path)>;

    // topology_checker.cpp
    void ReadInputs(const yaml::Node* node, const Path& path);
    void ReadNodes(const yaml::Node* node, const Path& path);
    // parameter_check.cpp
    void CheckUnknownParameters(const Json& user);
    void ReadRelationshipTemplates(const yaml::Node* node, const Path& path);
    void CheckGroups(const yaml::Node* node, const Path& path);
    void CheckPolicies(const yaml::Node* node, const Path& path);
    void CheckPolicy(const yaml::Entry& entry, const Path& path);
    void CheckOutputs(const yaml::Node* node, const Path& path);
    void CheckSubstitution(const yaml::Node* node, const Path& path);
    std::vector<std::string> ReadTargets(
        const yaml::Node* node,
        const std::vector<std::string>& allowed_types,
        bool groups_allowed,
        const std::string& owner,
        const Path& path
    );

    // node_checker.cpp
    void CheckNode(NodeTemplate& node, const Path& path);
    void CheckCapabilities(NodeTemplate& node, const Path& path);
    void CheckArtifacts(NodeTemplate& node, const Path& path);
    // node_operations.cpp
    void CollectOperations(NodeTemplate& node);
    void CheckAttributes(NodeTemplate& node, const Path& path);
    /// Checks a `properties:` (or `attributes:`) assignment against effective definitions:
    /// undeclared names, missing required values (reported at `at`), and each value evaluated and
    /// typed. Returns the typed values, type defaults included when `fill_defaults`.
    Json CheckAssignments(
        const yaml::Node* assigned,
        const std::vector<const PropertyDef*>& defs,
        const std::string& owner,
        const ValueFn& evaluate,
        bool fill_defaults,
        bool check_required,
        const yaml::Node* at,
        const Path& path
    );
    void CheckInterfaces(
        const yaml::Node* interfaces,
        const ResolvedType& owner_type,
        const std::string& owner,
        const EvalScope& scope,
        const Path& path
    );
    void CheckOperation(const yaml::Node& operation, const EvalScope& scope, const Path& path);
    std::vector<const PropertyDef*> CapabilityProperties(const CapabilityDef& def) const;

    // substitution_inputs.cpp
    void CheckSubstitutedInputs(const yaml::Node& mappings, const ResolvedType& type, const Path& path);

    // requirements.cpp
    void ReadRequirements(NodeTemplate& node, const Path& path);
    void BindRequirement(NodeTemplate& node, RequirementAssignment& req, const Path& path);
    const CapabilityDef* MatchCapability(const NodeTemplate& target, const RequirementAssignment& req, std::string& why)
        const;
    void ResolveRelationship(NodeTemplate& node, RequirementAssignment& req, const Path& path);
    void CheckRelationshipValues(NodeTemplate& node, RequirementAssignment& req, const Path& path);
    void CheckNodeFilter(const NodeTemplate& node, const RequirementAssignment& req, const Path& path);
    void CheckOccurrences(const NodeTemplate& node, const Path& path);
    void DetectCycles();

    bool strict() const { return options_.mode == Mode::kStrict; }

    const TypeRegistry& types_;
    const EngineOptions& options_;
    DiagSink& sink_;
    GrammarContext ctx_;
    yaml::Arena& scratch_;
    const std::optional<Json>& user_inputs_;
    const Json* accepted_parameters_ = nullptr;
    std::vector<std::string> accepted_unknown_;
    Topology topology_;
    std::set<std::string> group_names_;
    bool imports_incomplete_ = false;
    Evaluator evaluator_;
    ValueChecker checker_;
};

}  // namespace orch::tosca
