// The node's Standard lifecycle operations (create, configure, start, ...) as the spec carries
// them: what native contextualisation runs after the node's roles (INDIGO types name an Ansible
// playbook there).
#include "topology/topology_checker.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

bool IsStandard(const std::string& name) {
    return name == "Standard" || name == "tosca.interfaces.node.lifecycle.Standard";
}

bool IsGrammarKey(const std::string& key) {
    return key == "type" || key == "inputs" || key == "description" || key == "notifications" || key == "operations";
}

/// The implementation's artifact name: the scalar, or a mapping's `primary`.
std::string ImplementationOf(const yaml::Node& operation) {
    const yaml::Node* impl = operation.IsMapping() ? operation.Find("implementation") : &operation;
    if (impl != nullptr && impl->IsMapping()) {
        impl = impl->Find("primary");
    }
    return impl != nullptr && impl->IsScalar() ? impl->text : std::string();
}

}  // namespace

void TopologyChecker::CollectOperations(NodeTemplate& node) {
    // Evaluated again here with a sink of its own: the template's operations were checked (and
    // their findings reported) by CheckInterfaces; the type's are the type's business, and a
    // type-level input that cannot be evaluated for this node is left out, not the user's error.
    DiagSink quiet;
    Evaluator evaluator(
        topology_, types_, scratch_, quiet, false, user_inputs_.has_value(), options_.limits.max_function_depth
    );
    const EvalScope scope{&node, nullptr, nullptr, false};
    auto read_interface = [&](const yaml::Node& itf) {
        if (!itf.IsMapping()) {
            return;
        }
        const yaml::Node* ops = itf.Find("operations");
        for (const auto* entries : {&itf.entries, ops != nullptr && ops->IsMapping() ? &ops->entries : nullptr}) {
            if (entries == nullptr) {
                continue;
            }
            for (const auto& op : *entries) {
                if (IsGrammarKey(op.key->text) && entries == &itf.entries) {
                    continue;
                }
                Json& out = node.operation_values[op.key->text];
                if (const std::string impl = ImplementationOf(*op.value); !impl.empty()) {
                    out["implementation"] = impl;
                }
                const yaml::Node* inputs = op.value->IsMapping() ? op.value->Find("inputs") : nullptr;
                if (inputs == nullptr || !inputs->IsMapping()) {
                    continue;
                }
                for (const auto& input : inputs->entries) {
                    const std::size_t errors = quiet.error_count();
                    const Evaluated ev = evaluator.Evaluate(*input.value, scope, Path());
                    // An input that needs the deployment's attributes (get_attribute, e.g. a
                    // front end's address) is kept as its expression, as properties are: the
                    // connector evaluates it once the servers' addresses are known.
                    if (quiet.error_count() == errors && ev.value != nullptr) {
                        out["inputs"][input.key->text] = yaml::ToJson(*ev.value);
                    }
                }
            }
        }
    };
    // Root first, so a derived type's operation replaces its parent's, and the template's last.
    for (auto name = node.type->chain.rbegin(); name != node.type->chain.rend(); ++name) {
        const ResolvedType* type = types_.Find(TypeKind::kNode, *name);
        if (type == nullptr || type->def == nullptr) {
            continue;
        }
        for (const auto& itf : type->def->interfaces) {
            if (IsStandard(itf.name) && itf.at != nullptr) {
                read_interface(*itf.at);
            }
        }
    }
    if (node.interfaces != nullptr && node.interfaces->IsMapping()) {
        for (const auto& entry : node.interfaces->entries) {
            if (IsStandard(entry.key->text)) {
                read_interface(*entry.value);
            }
        }
    }
}

}  // namespace orch::tosca
