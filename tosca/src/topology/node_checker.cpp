#include "topology/topology_checker.hpp"

#include <algorithm>
#include <unordered_set>

namespace orch::tosca {
namespace {

bool Contains(const std::vector<std::string>& items, const std::string& item) {
    return std::find(items.begin(), items.end(), item) != items.end();
}

void CollectNodes(const yaml::Node& node, std::unordered_set<const yaml::Node*>& out) {
    if (!out.insert(&node).second) {
        return;  // a shared (aliased) subtree: already walked
    }
    for (const yaml::Node* item : node.items) {
        CollectNodes(*item, out);
    }
    for (const auto& entry : node.entries) {
        out.insert(entry.key);
        CollectNodes(*entry.value, out);
    }
}

/// The artifacts the node's type declares (INDIGO types name their Ansible roles there), as
/// the template's own would read; the template's artifact of the same name replaces one.
void AddTypeArtifacts(NodeTemplate& node) {
    for (const ArtifactDef* def : node.type->artifacts) {
        if (def->at == nullptr) {
            continue;
        }
        Json artifact = Json::object();
        if (def->at->IsMapping()) {
            for (const auto& field : def->at->entries) {
                artifact[field.key->text] = yaml::ToJson(*field.value);
            }
        } else if (def->at->IsScalar()) {
            artifact["file"] = def->at->text;
        }
        if (!def->type.empty()) {
            artifact["type"] = def->type;
        }
        node.artifact_values[def->name] = std::move(artifact);
    }
}

}  // namespace

void TopologyChecker::CheckNode(NodeTemplate& node, const Path& path) {
    if (node.type == nullptr) {
        return;  // unknown type: reported when read
    }
    const std::string owner = "node type " + node.type->name();
    node.property_values = CheckAssignments(
        node.properties,
        node.type->properties,
        owner,
        [&](const PropertyDef& def, const yaml::Node*, const Path& p) {
            return evaluator_.Property(node, "", def.name, p);
        },
        true,
        true,
        node.node,
        path.Key("properties")
    );
    CheckAttributes(node, path);
    CheckCapabilities(node, path);
    CheckArtifacts(node, path);
    CheckInterfaces(
        node.interfaces, *node.type, owner, EvalScope{&node, nullptr, nullptr, false}, path.Key("interfaces")
    );
    CollectOperations(node);
    const Path reqs = path.Key("requirements");
    for (auto& req : node.requirements) {
        const Path item = reqs.Index(req.index);
        const Path here = item.Key(req.name);
        CheckRelationshipValues(node, req, here);
        CheckNodeFilter(node, req, here);
    }
    CheckOccurrences(node, path);
}

Json TopologyChecker::CheckAssignments(
    const yaml::Node* assigned,
    const std::vector<const PropertyDef*>& defs,
    const std::string& owner,
    const ValueFn& evaluate,
    bool fill_defaults,
    bool check_required,
    const yaml::Node* at,
    const Path& path
) {
    Json out = Json::object();
    if (assigned != nullptr && !assigned->IsNull() && !assigned->IsMapping()) {
        sink_.Error(
            DiagnosticCode::kInvalidValue,
            assigned,
            path,
            "properties must be a mapping of names to values, not " + yaml::Describe(*assigned)
        );
        assigned = nullptr;
    }
    if (assigned != nullptr) {
        for (const auto& entry : assigned->entries) {
            const bool declared =
                std::any_of(defs.begin(), defs.end(), [&](const PropertyDef* d) { return d->name == entry.key->text; });
            if (!declared) {
                sink_.Error(
                    DiagnosticCode::kUnknownField,
                    entry.key,
                    path.Key(entry.key->text),
                    "property '" + entry.key->text + "' is not declared by " + owner
                );
            }
        }
    }
    DiagSink quiet(1);
    ValueChecker defaults_checker(types_, LiteralTyping::kTextual, quiet);
    for (const PropertyDef* def : defs) {
        const yaml::Node* raw = assigned != nullptr ? assigned->Find(def->name) : nullptr;
        const bool given = raw != nullptr && !raw->IsNull();
        const Path here = path.Key(def->name);
        if (!given && def->default_value == nullptr) {
            if (def->required && check_required) {
                sink_.StrictError(
                    strict(),
                    DiagnosticCode::kMissingRequired,
                    raw != nullptr ? raw : (assigned != nullptr ? assigned : at),
                    here,
                    "required property '" + def->name + "' of " + owner + " is not set"
                );
            }
            continue;
        }
        if (!given && !fill_defaults) {
            continue;
        }
        const Evaluated ev = evaluate(*def, given ? raw : def->default_value, here);
        if (ev.value == nullptr) {
            continue;
        }
        if (!given) {
            out[def->name] = defaults_checker.Check(*ev.value, def->schema, here);  // reported with the definition
            continue;
        }
        // The original does not type-check values computed by functions (tosca.md 3.2): in
        // compatibility mode, problems in the parts of the value that were not written
        // literally in this property are warnings.
        std::unordered_set<const yaml::Node*> written;
        if (!strict() && ev.value != raw) {
            CollectNodes(*raw, written);
            checker_.set_lenient([&written](const yaml::Node& n) { return written.count(&n) == 0; });
        }
        checker_.set_fallback(raw);
        out[def->name] = checker_.Check(*ev.value, def->schema, here);
        checker_.set_fallback(nullptr);
        checker_.set_lenient(nullptr);
    }
    return out;
}

void TopologyChecker::CheckAttributes(NodeTemplate& node, const Path& path) {
    const Path here = path.Key("attributes");
    if (node.attributes == nullptr || !ExpectMapping(node.attributes, here, "attributes", ctx_) ||
        !node.attributes->IsMapping()) {
        return;
    }
    std::vector<const PropertyDef*> defs = node.type->attributes;
    defs.insert(defs.end(), node.type->properties.begin(), node.type->properties.end());
    const EvalScope scope{&node, nullptr, nullptr, false};
    CheckAssignments(
        node.attributes,
        defs,
        "node type " + node.type->name(),
        [&](const PropertyDef&, const yaml::Node* raw, const Path& p) { return evaluator_.Evaluate(*raw, scope, p); },
        false,
        false,
        node.attributes,
        here
    );
}

std::vector<const PropertyDef*> TopologyChecker::CapabilityProperties(const CapabilityDef& def) const {
    std::vector<const PropertyDef*> out;
    if (const ResolvedType* type = types_.Find(TypeKind::kCapability, def.type)) {
        out = type->properties;
    }
    for (const auto& refined : def.properties) {
        const auto it =
            std::find_if(out.begin(), out.end(), [&](const PropertyDef* p) { return p->name == refined.name; });
        if (it != out.end()) {
            *it = &refined;
        } else {
            out.push_back(&refined);
        }
    }
    return out;
}

void TopologyChecker::CheckCapabilities(NodeTemplate& node, const Path& path) {
    const Path caps = path.Key("capabilities");
    if (node.capabilities == nullptr || !ExpectMapping(node.capabilities, caps, "capabilities", ctx_) ||
        !node.capabilities->IsMapping()) {
        return;
    }
    for (const auto& entry : node.capabilities->entries) {
        const std::string& name = entry.key->text;
        const Path here = caps.Key(name);
        const CapabilityDef* def = node.type->FindCapability(name);
        if (def == nullptr) {
            sink_.StrictError(
                strict(),
                DiagnosticCode::kUnknownField,
                entry.key,
                here,
                "capability '" + name + "' is not declared by node type " + node.type->name() +
                    (strict() ? "" : " (ignored)")
            );
            continue;
        }
        const ResolvedType* cap_type = types_.Find(TypeKind::kCapability, def->type);
        if (cap_type == nullptr || !ExpectMapping(entry.value, here, "a capability assignment", ctx_)) {
            continue;
        }
        const yaml::Node* value = entry.value->IsMapping() ? entry.value : nullptr;
        if (value != nullptr) {
            CheckKeys(*value, {"properties", "attributes", "occurrences"}, here, "capability '" + name + "'", ctx_);
        }
        node.capability_values[name] = CheckAssignments(
            value != nullptr ? value->Find("properties") : nullptr,
            CapabilityProperties(*def),
            "capability type " + cap_type->name(),
            [&](const PropertyDef& d, const yaml::Node*, const Path& p) {
                return evaluator_.Property(node, name, d.name, p);
            },
            true,
            true,
            entry.value,
            here.Key("properties")
        );
        if (value != nullptr && value->Find("attributes") != nullptr) {
            std::vector<const PropertyDef*> attrs = cap_type->attributes;
            attrs.insert(attrs.end(), cap_type->properties.begin(), cap_type->properties.end());
            const EvalScope scope{&node, nullptr, nullptr, false};
            CheckAssignments(
                value->Find("attributes"),
                attrs,
                "capability type " + cap_type->name(),
                [&](const PropertyDef&, const yaml::Node* raw, const Path& p) {
                    return evaluator_.Evaluate(*raw, scope, p);
                },
                false,
                false,
                value,
                here.Key("attributes")
            );
        }
    }
}

void TopologyChecker::CheckArtifacts(NodeTemplate& node, const Path& path) {
    AddTypeArtifacts(node);
    const Path arts = path.Key("artifacts");
    if (node.artifacts == nullptr || !ExpectMapping(node.artifacts, arts, "artifacts", ctx_) ||
        !node.artifacts->IsMapping()) {
        return;
    }
    const EvalScope scope{&node, nullptr, nullptr, false};
    for (const auto& entry : node.artifacts->entries) {
        const std::string& name = entry.key->text;
        const Path here = arts.Key(name);
        const yaml::Node& value = *entry.value;
        Json artifact = Json::object();
        const yaml::Node* file = &value;
        if (value.IsMapping() && !yaml::FunctionName(value)) {
            CheckKeys(
                value,
                {"type",
                 "file",
                 "repository",
                 "description",
                 "deploy_path",
                 "version",
                 "checksum",
                 "checksum_algorithm",
                 "properties",
                 "artifact_version"},
                here,
                "artifact '" + name + "'",
                ctx_
            );
            if (const auto type = ReadText(value.Find("type"), here.Key("type"), "type", ctx_)) {
                if (types_.Find(TypeKind::kArtifact, *type) == nullptr) {
                    sink_.Error(
                        DiagnosticCode::kUnknownType,
                        value.Find("type"),
                        here.Key("type"),
                        "unknown artifact type " + *type
                    );
                }
                artifact["type"] = *type;
            } else {
                sink_.StrictError(
                    strict(), DiagnosticCode::kMissingRequired, &value, here, "artifact '" + name + "' has no type"
                );
            }
            for (const auto& field : value.entries) {
                if (field.key->text != "type" && field.key->text != "file") {
                    artifact[field.key->text] = yaml::ToJson(*field.value);
                }
            }
            file = value.Find("file");
            if (file == nullptr) {
                sink_.StrictError(
                    strict(), DiagnosticCode::kMissingRequired, &value, here, "artifact '" + name + "' has no file"
                );
                node.artifact_values[name] = artifact;
                continue;
            }
        } else if (!value.IsScalar() && !yaml::FunctionName(value)) {
            sink_.Error(
                DiagnosticCode::kInvalidValue,
                &value,
                here,
                "an artifact must be a file name or a mapping {type, file, ...}"
            );
            continue;
        }
        const Path file_path = value.IsMapping() && !yaml::FunctionName(value) ? here.Key("file") : here;
        const Evaluated ev = evaluator_.Evaluate(*file, scope, file_path);
        if (ev.resolved && ev.value != nullptr && !ev.value->IsScalar()) {
            sink_.Error(
                DiagnosticCode::kInvalidValue,
                file,
                file_path,
                "the artifact file must be text, not " + yaml::Describe(*ev.value)
            );
        }
        artifact["file"] = yaml::ToJson(*ev.value);
        node.artifact_values[name] = artifact;
    }
}

void TopologyChecker::CheckInterfaces(
    const yaml::Node* interfaces,
    const ResolvedType& owner_type,
    const std::string& owner,
    const EvalScope& scope,
    const Path& path
) {
    if (interfaces == nullptr || !ExpectMapping(interfaces, path, "interfaces", ctx_) || !interfaces->IsMapping()) {
        return;
    }
    for (const auto& entry : interfaces->entries) {
        const std::string& name = entry.key->text;
        const Path here = path.Key(name);
        const EffectiveInterface* declared = owner_type.FindInterface(name);
        if (declared == nullptr) {
            sink_.StrictError(
                strict(),
                DiagnosticCode::kUnknownField,
                entry.key,
                here,
                "interface '" + name + "' is not declared by " + owner
            );
        }
        if (!ExpectMapping(entry.value, here, "an interface assignment", ctx_) || !entry.value->IsMapping()) {
            continue;
        }
        for (const auto& op : entry.value->entries) {
            const std::string& key = op.key->text;
            const Path op_path = here.Key(key);
            if (key == "operations" || key == "notifications") {
                CheckKeyVersion(*op.key, op_path, "an interface assignment", ctx_);
            }
            if (key == "type" || key == "description" || key == "notifications") {
                continue;
            }
            if (key == "inputs") {
                if (ExpectMapping(op.value, op_path, "inputs", ctx_) && op.value->IsMapping()) {
                    for (const auto& input : op.value->entries) {
                        evaluator_.Evaluate(*input.value, scope, op_path.Key(input.key->text));
                    }
                }
                continue;
            }
            if (key == "operations") {
                if (ExpectMapping(op.value, op_path, "operations", ctx_) && op.value->IsMapping()) {
                    for (const auto& inner : op.value->entries) {
                        if (declared != nullptr && !Contains(declared->operations, inner.key->text)) {
                            sink_.StrictError(
                                strict(),
                                DiagnosticCode::kUnknownField,
                                inner.key,
                                op_path.Key(inner.key->text),
                                "interface '" + name + "' of " + owner + " has no operation '" + inner.key->text + "'"
                            );
                        }
                        CheckOperation(*inner.value, scope, op_path.Key(inner.key->text));
                    }
                }
                continue;
            }
            if (declared != nullptr && !Contains(declared->operations, key)) {
                sink_.StrictError(
                    strict(),
                    DiagnosticCode::kUnknownField,
                    op.key,
                    op_path,
                    "interface '" + name + "' of " + owner + " has no operation '" + key + "'"
                );
            }
            CheckOperation(*op.value, scope, op_path);
        }
    }
}

void TopologyChecker::CheckOperation(const yaml::Node& operation, const EvalScope& scope, const Path& path) {
    if (operation.IsNull() || operation.IsScalar()) {
        return;  // nothing, or the implementation artifact
    }
    if (!ExpectMapping(&operation, path, "an operation", ctx_)) {
        return;
    }
    CheckKeys(
        operation,
        {"implementation", "inputs", "description", "timeout", "operation_host", "outputs"},
        path,
        "an operation",
        ctx_
    );
    if (const yaml::Node* impl = operation.Find("implementation"); impl != nullptr && impl->IsMapping()) {
        CheckKeys(
            *impl,
            {"primary", "dependencies", "timeout", "operation_host"},
            path.Key("implementation"),
            "an implementation",
            ctx_
        );
    }
    const yaml::Node* inputs = operation.Find("inputs");
    const Path inputs_path = path.Key("inputs");
    if (inputs != nullptr && ExpectMapping(inputs, inputs_path, "inputs", ctx_) && inputs->IsMapping()) {
        for (const auto& input : inputs->entries) {
            evaluator_.Evaluate(*input.value, scope, inputs_path.Key(input.key->text));
        }
    }
}

}  // namespace orch::tosca
