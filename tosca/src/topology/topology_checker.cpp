#include "topology/topology_checker.hpp"

#include "types/definition_parser.hpp"
#include "types/definitions_check.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

LiteralTyping TypingFor(const EngineOptions& options) {
    return options.mode == Mode::kStrict ? LiteralTyping::kYamlTyped : LiteralTyping::kTextual;
}

bool IsWordName(const std::string& name) {
    return !name.empty() &&
           std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

std::string RenamedLikeOriginal(std::string name) {
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
            c = '_';
        }
    }
    return name;
}

}  // namespace

TopologyChecker::TopologyChecker(
    const TypeRegistry& types,
    const EngineOptions& options,
    DiagSink& sink,
    yaml::Arena& scratch,
    const std::optional<Json>& user_inputs
)
    : types_(types),
      options_(options),
      sink_(sink),
      ctx_{sink, options.mode == Mode::kStrict},
      scratch_(scratch),
      user_inputs_(user_inputs),
      evaluator_(
          topology_,
          types,
          scratch,
          sink,
          options.mode == Mode::kStrict,
          user_inputs.has_value(),
          options.limits.max_function_depth
      ),
      checker_(types, TypingFor(options), sink) {}

void TopologyChecker::Run(const yaml::Node* topology) {
    const Path path = Path().Key("topology_template");
    if (topology == nullptr || topology->IsNull()) {
        sink_.Error(DiagnosticCode::kMissingRequired, topology, path, "the template has no topology_template");
        ReadInputs(nullptr, path.Key("inputs"));
        return;
    }
    if (!ExpectMapping(topology, path, "topology_template", ctx_)) {
        return;
    }
    CheckKeys(
        *topology,
        {"description",
         "inputs",
         "node_templates",
         "relationship_templates",
         "groups",
         "policies",
         "outputs",
         "substitution_mappings",
         "workflows"},
        path,
        "topology_template",
        ctx_
    );
    ReadInputs(topology->Find("inputs"), path.Key("inputs"));
    ReadRelationshipTemplates(topology->Find("relationship_templates"), path.Key("relationship_templates"));
    if (const yaml::Node* nodes = topology->Find("node_templates"); nodes != nullptr) {
        ReadNodes(nodes, path.Key("node_templates"));
    } else {
        sink_.Error(
            DiagnosticCode::kMissingRequired,
            topology,
            path.Key("node_templates"),
            "topology_template has no node_templates"
        );
    }
    const Path nodes_path = path.Key("node_templates");
    for (auto& node : topology_.nodes) {
        ReadRequirements(*node, nodes_path.Key(node->name));
    }
    for (auto& node : topology_.nodes) {
        CheckNode(*node, nodes_path.Key(node->name));
    }
    DetectCycles();
    CheckGroups(topology->Find("groups"), path.Key("groups"));
    CheckPolicies(topology->Find("policies"), path.Key("policies"));
    CheckOutputs(topology->Find("outputs"), path.Key("outputs"));
    CheckSubstitution(topology->Find("substitution_mappings"), path.Key("substitution_mappings"));
}

void TopologyChecker::ReadInputs(const yaml::Node* node, const Path& path) {
    std::vector<PropertyDef> defs = ParsePropertyDefs(node, DefinitionKind::kInput, path, ctx_);
    CheckPropertyDefs(defs, types_, TypingFor(options_), path, ctx_);
    const Json* user = nullptr;
    const Path params = Path().Key("parameters");
    if (user_inputs_.has_value()) {
        if (user_inputs_->is_object()) {
            user = &*user_inputs_;
        } else if (!user_inputs_->is_null()) {
            sink_.AddAt(
                Severity::kError,
                DiagnosticCode::kInputValue,
                std::string(kParametersSource),
                {},
                "parameters",
                "the parameters must be a JSON object of input values"
            );
        }
    }
    ValueChecker input_checker(types_, TypingFor(options_), sink_, DiagnosticCode::kInputValue);
    for (auto& def : defs) {
        InputSpec input;
        input.def = std::move(def);
        const PropertyDef& d = input.def;
        const Path here = path.Key(d.name);
        if (user != nullptr && user->contains(d.name) && !(*user)[d.name].is_null()) {
            Json value = (*user)[d.name];
            if (value.is_number_integer() && d.schema.type == "float") {
                value = value.get<double>();  // JSON has one number type: 2 is a fine float
            }
            input.value = scratch_.FromJson(value);
            input.from_user = true;
            input.json = input_checker.Check(*input.value, d.schema, params.Key(d.name));
        } else if (d.default_value != nullptr) {
            input.value = d.default_value;
            input.json = yaml::ToJson(*d.default_value);
            if (checker_.IsKnownValueType(d.schema.type)) {
                DiagSink quiet(1);  // the default was reported by CheckPropertyDefs already
                input.json = ValueChecker(types_, TypingFor(options_), quiet).Check(*d.default_value, d.schema, here);
            }
        } else if (user_inputs_.has_value() && d.required) {
            sink_.Error(
                DiagnosticCode::kMissingInput,
                d.key,
                here,
                "Input " + d.name + " is required and is not present in the user's input list, nor has a default value"
            );
        }
        topology_.inputs.push_back(std::move(input));
    }
    if (user != nullptr) {
        CheckUnknownParameters(*user);
    }
}

void TopologyChecker::ReadRelationshipTemplates(const yaml::Node* node, const Path& path) {
    if (node == nullptr || !ExpectMapping(node, path, "relationship_templates", ctx_)) {
        return;
    }
    for (const auto& entry : node->entries) {
        const Path here = path.Key(entry.key->text);
        RelationshipTemplate rel;
        rel.name = entry.key->text;
        rel.node = entry.value;
        if (!ExpectMapping(entry.value, here, "a relationship template", ctx_) || !entry.value->IsMapping()) {
            continue;
        }
        CheckKeys(
            *entry.value,
            {"type", "description", "metadata", "properties", "attributes", "interfaces", "copy"},
            here,
            "a relationship template",
            ctx_
        );
        const auto type = ReadText(entry.value->Find("type"), here.Key("type"), "type", ctx_);
        rel.type = type ? types_.Find(TypeKind::kRelationship, *type) : nullptr;
        if (!type) {
            sink_.Error(
                DiagnosticCode::kMissingRequired,
                entry.value,
                here,
                "relationship template '" + rel.name + "' has no type"
            );
        } else if (rel.type == nullptr) {
            sink_.Error(
                DiagnosticCode::kUnknownType,
                entry.value->Find("type"),
                here.Key("type"),
                "unknown relationship type " + *type
            );
        }
        topology_.relationships.emplace(rel.name, rel);
    }
}

void TopologyChecker::ReadNodes(const yaml::Node* node, const Path& path) {
    if (node->IsNull()) {
        sink_.Error(DiagnosticCode::kMissingRequired, node, path, "node_templates is empty");
        return;
    }
    if (!ExpectMapping(node, path, "node_templates", ctx_)) {
        return;
    }
    if (node->entries.size() > options_.limits.max_node_templates) {
        sink_.Error(
            DiagnosticCode::kLimitExceeded,
            node,
            path,
            "the template has " + std::to_string(node->entries.size()) + " node templates, more than the limit of " +
                std::to_string(options_.limits.max_node_templates)
        );
        return;
    }
    for (const auto& entry : node->entries) {
        auto tpl = std::make_unique<NodeTemplate>();
        tpl->name = entry.key->text;
        tpl->index = topology_.nodes.size();
        tpl->key = entry.key;
        tpl->node = entry.value;
        const Path here = path.Key(tpl->name);
        if (!IsWordName(tpl->name)) {
            sink_.StrictError(
                false,
                DiagnosticCode::kGeneral,
                entry.key,
                here,
                "node template name '" + tpl->name +
                    "' has characters other than letters, digits and '_' (the original orchestrator renamed it '" +
                    RenamedLikeOriginal(tpl->name) + "'; deployment targets such as Marathon may refuse it)"
            );
        }
        if (ExpectMapping(entry.value, here, "a node template", ctx_) && entry.value->IsMapping()) {
            const yaml::Node& m = *entry.value;
            CheckKeys(
                m,
                {"type",
                 "description",
                 "metadata",
                 "directives",
                 "properties",
                 "attributes",
                 "requirements",
                 "capabilities",
                 "interfaces",
                 "artifacts",
                 "node_filter",
                 "copy"},
                here,
                "node template '" + tpl->name + "'",
                ctx_
            );
            const auto type = ReadText(m.Find("type"), here.Key("type"), "type", ctx_);
            if (!type) {
                sink_.Error(
                    DiagnosticCode::kMissingRequired, &m, here, "node template '" + tpl->name + "' has no type"
                );
            } else if ((tpl->type = types_.Find(TypeKind::kNode, *type)) != nullptr && !tpl->type->broken.empty()) {
                sink_.Error(
                    DiagnosticCode::kUnknownType,
                    m.Find("type"),
                    here.Key("type"),
                    "node type " + tpl->type->name() + " cannot be used: " + tpl->type->broken
                );
                tpl->type = nullptr;
            } else if (tpl->type == nullptr) {
                const auto other = types_.KindOf(*type);
                sink_.Error(
                    DiagnosticCode::kUnknownType,
                    m.Find("type"),
                    here.Key("type"),
                    other ? *type + " is a " + std::string(TypeKindWord(*other)) + " type, not a node type"
                          : "unknown node type " + *type +
                                (imports_incomplete_ ? " (an import could not be read; it may define it)"
                                                     : " (not a normative type and not defined by the imports)")
                );
            }
            tpl->properties = m.Find("properties");
            tpl->attributes = m.Find("attributes");
            tpl->capabilities = m.Find("capabilities");
            tpl->requirements_node = m.Find("requirements");
            tpl->artifacts = m.Find("artifacts");
            tpl->interfaces = m.Find("interfaces");
        }
        topology_.by_name[tpl->name] = tpl.get();
        topology_.nodes.push_back(std::move(tpl));
    }
}

std::vector<std::string> TopologyChecker::ReadTargets(
    const yaml::Node* node,
    const std::vector<std::string>& allowed_types,
    bool groups_allowed,
    const std::string& owner,
    const Path& path
) {
    std::vector<std::string> targets = ReadNameList(node, path, "targets", ctx_);
    const yaml::Node* at = node;
    for (const auto& target : targets) {
        const NodeTemplate* tpl = topology_.FindNode(target);
        if (tpl == nullptr && groups_allowed && group_names_.count(target) > 0) {
            continue;
        }
        if (tpl == nullptr) {
            sink_.Error(
                DiagnosticCode::kRequirement,
                at,
                path,
                owner + ": target '" + target + "' is not a node template" + (groups_allowed ? " or group" : "")
            );
            continue;
        }
        if (!allowed_types.empty() && tpl->type != nullptr &&
            std::none_of(allowed_types.begin(), allowed_types.end(), [&](const std::string& t) {
                return types_.Derives(TypeKind::kNode, tpl->type->name(), t);
            })) {
            sink_.StrictError(
                strict(),
                DiagnosticCode::kRequirement,
                at,
                path,
                owner + ": target '" + target + "' is of type " + tpl->type->name() + ", which the type does not allow"
            );
        }
    }
    return targets;
}

void TopologyChecker::CheckGroups(const yaml::Node* node, const Path& path) {
    if (node == nullptr || !ExpectMapping(node, path, "groups", ctx_)) {
        return;
    }
    for (const auto& entry : node->entries) {
        group_names_.insert(entry.key->text);
    }
    for (const auto& entry : node->entries) {
        const Path here = path.Key(entry.key->text);
        if (!ExpectMapping(entry.value, here, "a group", ctx_) || !entry.value->IsMapping()) {
            continue;
        }
        const yaml::Node& m = *entry.value;
        CheckKeys(
            m,
            {"type", "description", "metadata", "properties", "attributes", "members", "interfaces"},
            here,
            "group '" + entry.key->text + "'",
            ctx_
        );
        const auto type_name = ReadText(m.Find("type"), here.Key("type"), "type", ctx_);
        const ResolvedType* type = type_name ? types_.Find(TypeKind::kGroup, *type_name) : nullptr;
        if (!type_name) {
            sink_.Error(DiagnosticCode::kMissingRequired, &m, here, "group '" + entry.key->text + "' has no type");
            continue;
        }
        if (type == nullptr) {
            sink_.Error(
                DiagnosticCode::kUnknownType, m.Find("type"), here.Key("type"), "unknown group type " + *type_name
            );
            continue;
        }
        ReadTargets(
            m.Find("members"), type->valid_types, false, "group '" + entry.key->text + "'", here.Key("members")
        );
        const EvalScope scope{};
        CheckAssignments(
            m.Find("properties"),
            type->properties,
            "group type " + type->name(),
            [&](const PropertyDef&, const yaml::Node* raw, const Path& p) {
                return evaluator_.Evaluate(*raw, scope, p);
            },
            true,
            true,
            &m,
            here.Key("properties")
        );
        CheckInterfaces(m.Find("interfaces"), *type, "group type " + type->name(), scope, here.Key("interfaces"));
    }
}

void TopologyChecker::CheckPolicies(const yaml::Node* node, const Path& path) {
    if (node == nullptr || node->IsNull()) {
        return;
    }
    if (node->IsMapping()) {
        sink_.StrictError(
            strict(),
            DiagnosticCode::kInvalidValue,
            node,
            path,
            "policies must be a list of single-key maps (- name: definition)"
        );
        for (const auto& entry : node->entries) {
            CheckPolicy(entry, path.Key(entry.key->text));
        }
        return;
    }
    if (!ExpectSequence(node, path, "policies", ctx_)) {
        return;
    }
    for (std::size_t i = 0; i < node->items.size(); ++i) {
        const Path item = path.Index(i);
        if (const yaml::Entry* entry = SingleEntry(*node->items[i], item, "a policy", ctx_)) {
            CheckPolicy(*entry, item.Key(entry->key->text));
        }
    }
}

void TopologyChecker::CheckPolicy(const yaml::Entry& entry, const Path& here) {
    if (!ExpectMapping(entry.value, here, "a policy", ctx_) || !entry.value->IsMapping()) {
        return;
    }
    const yaml::Node& m = *entry.value;
    const std::string owner = "policy '" + entry.key->text + "'";
    CheckKeys(m, {"type", "description", "metadata", "properties", "targets", "triggers"}, here, owner, ctx_);
    PolicyTemplate policy;
    policy.name = entry.key->text;
    policy.node = &m;
    const auto type_name = ReadText(m.Find("type"), here.Key("type"), "type", ctx_);
    if (!type_name) {
        sink_.Error(DiagnosticCode::kMissingRequired, &m, here, owner + " has no type");
        return;
    }
    policy.type = types_.Find(TypeKind::kPolicy, *type_name);
    if (policy.type == nullptr) {
        sink_.Error(
            DiagnosticCode::kUnknownType, m.Find("type"), here.Key("type"), "unknown policy type " + *type_name
        );
        return;
    }
    policy.targets = ReadTargets(m.Find("targets"), policy.type->valid_types, true, owner, here.Key("targets"));
    const EvalScope scope{};
    policy.property_values = CheckAssignments(
        m.Find("properties"),
        policy.type->properties,
        "policy type " + policy.type->name(),
        [&](const PropertyDef&, const yaml::Node* raw, const Path& p) { return evaluator_.Evaluate(*raw, scope, p); },
        true,
        true,
        &m,
        here.Key("properties")
    );
    topology_.policies.push_back(std::move(policy));
}

void TopologyChecker::CheckOutputs(const yaml::Node* node, const Path& path) {
    if (node == nullptr || !ExpectMapping(node, path, "outputs", ctx_)) {
        return;
    }
    for (const auto& entry : node->entries) {
        const Path here = path.Key(entry.key->text);
        if (!ExpectMapping(entry.value, here, "an output", ctx_) || !entry.value->IsMapping()) {
            continue;
        }
        const yaml::Node& m = *entry.value;
        CheckKeys(
            m,
            {"value", "description", "type", "status", "required", "entry_schema", "key_schema", "metadata"},
            here,
            "output '" + entry.key->text + "'",
            ctx_
        );
        OutputValue out;
        out.name = entry.key->text;
        out.description = ReadText(m.Find("description"), here.Key("description"), "description", ctx_).value_or("");
        const yaml::Node* value = m.Find("value");
        if (value == nullptr) {
            sink_.Error(DiagnosticCode::kMissingRequired, &m, here, "output '" + out.name + "' has no value");
            continue;
        }
        EvalScope scope;
        scope.in_outputs = true;
        const Evaluated ev = evaluator_.Evaluate(*value, scope, here.Key("value"));
        out.resolved = ev.resolved;
        out.value = yaml::ToJson(*ev.value);
        topology_.outputs.push_back(std::move(out));
    }
}

void TopologyChecker::CheckSubstitution(const yaml::Node* node, const Path& path) {
    if (node == nullptr || !ExpectMapping(node, path, "substitution_mappings", ctx_) || !node->IsMapping()) {
        return;
    }
    CheckKeys(
        *node,
        {"node_type",
         "node",
         "capabilities",
         "requirements",
         "properties",
         "attributes",
         "interfaces",
         "substitution_filter"},
        path,
        "substitution_mappings",
        ctx_
    );
    if (const auto type = ReadText(node->Find("node_type"), path.Key("node_type"), "node_type", ctx_)) {
        if (const ResolvedType* substituted = types_.Find(TypeKind::kNode, *type)) {
            CheckSubstitutedInputs(*node, *substituted, path);
        } else {
            sink_.Error(
                DiagnosticCode::kUnknownType,
                node->Find("node_type"),
                path.Key("node_type"),
                "unknown node type " + *type
            );
        }
    }
}

}  // namespace orch::tosca
