#include "topology/evaluator.hpp"

#include "yaml/load_limits.hpp"

#include <algorithm>

namespace orch::tosca {

/// "a" or "a.b": the names get_property looked for on the hosts, for the message.
std::string ArgsPath(const yaml::Node& args) {
    std::string out = args.items[1]->text;
    if (args.items.size() >= 3) {
        out += "." + args.items[2]->text;
    }
    return out;
}

Evaluated Evaluator::Evaluate(const yaml::Node& value, const EvalScope& scope, const Path& path) {
    if (depth_ >= max_depth_) {
        Fail(value, path, "functions nest deeper than " + std::to_string(max_depth_) + " levels");
        return {&value, false};
    }
    if (const auto name = yaml::FunctionName(value)) {
        ++depth_;
        Evaluated out = EvaluateFunction(*name, value, scope, path);
        --depth_;
        return out;
    }
    if (value.IsMapping()) {
        Evaluated out{&value, true};
        yaml::Node* copy = nullptr;
        for (std::size_t i = 0; i < value.entries.size(); ++i) {
            const auto& entry = value.entries[i];
            ++depth_;
            const Evaluated child = Evaluate(*entry.value, scope, path.Key(entry.key->text));
            --depth_;
            out.resolved = out.resolved && child.resolved;
            if (child.value != entry.value && copy == nullptr) {
                copy = scratch_.New(yaml::NodeKind::kMapping, value.mark);
                copy->source = value.source;
                copy->entries.assign(value.entries.begin(), value.entries.begin() + static_cast<std::ptrdiff_t>(i));
            }
            if (copy != nullptr) {
                copy->entries.push_back({entry.key, child.value});
            }
        }
        if (copy != nullptr) {
            for (const auto& entry : copy->entries) {
                copy->size += entry.key->size + entry.value->size;
                copy->bytes += entry.key->bytes + entry.value->bytes;
            }
            out.value = copy;
        }
        return out;
    }
    if (value.IsSequence()) {
        Evaluated out{&value, true};
        yaml::Node* copy = nullptr;
        for (std::size_t i = 0; i < value.items.size(); ++i) {
            ++depth_;
            const Evaluated child = Evaluate(*value.items[i], scope, path.Index(i));
            --depth_;
            out.resolved = out.resolved && child.resolved;
            if (child.value != value.items[i] && copy == nullptr) {
                copy = scratch_.New(yaml::NodeKind::kSequence, value.mark);
                copy->source = value.source;
                copy->items.assign(value.items.begin(), value.items.begin() + static_cast<std::ptrdiff_t>(i));
            }
            if (copy != nullptr) {
                copy->items.push_back(child.value);
            }
        }
        if (copy != nullptr) {
            for (const yaml::Node* item : copy->items) {
                copy->size += item->size;
                copy->bytes += item->bytes;
            }
            out.value = copy;
        }
        return out;
    }
    return {&value, true};
}

Evaluated Evaluator::EvaluateFunction(
    std::string_view name, const yaml::Node& call, const EvalScope& scope, const Path& path
) {
    const yaml::Node& args = *call.entries.front().value;
    const Path here = path.Key(name);
    if (name == "get_input" || name == "get_property") {
        const Evaluated out = name == "get_input" ? GetInput(call, args, here) : GetProperty(call, args, scope, here);
        if (!Charge(out, call, here)) {
            return {&call, false};
        }
        return out;
    }
    if (name == "get_attribute") {
        return GetAttribute(call, args, scope, here);
    }
    if (name == "concat") {
        return Concat(call, args, scope, here);
    }
    if (name == "join") {
        return Join(call, args, scope, here);
    }
    if (name == "token") {
        return Token(call, args, scope, here);
    }
    if (name == "get_nodes_of_type") {
        return GetNodesOfType(call, args, here);
    }
    if (name == "get_artifact") {
        return GetArtifact(call, args, scope, here);
    }
    return GetOperationOutput(call, args, scope, here);
}

bool Evaluator::Charge(const Evaluated& result, const yaml::Node& call, const Path& path) {
    if (result.value == nullptr || result.value == &call) {
        return true;  // unresolved: nothing is copied
    }
    copied_ += result.value->bytes + yaml::LoadLimits::kAliasNodeWeight * result.value->size;
    if (copied_ <= copy_budget_) {
        return true;
    }
    if (!copy_budget_reported_) {
        copy_budget_reported_ = true;
        sink_.Error(
            DiagnosticCode::kLimitExceeded,
            &call,
            path,
            "get_input and get_property results add up to more than " + std::to_string(copy_budget_) +
                " bytes (each reference copies the value; tosca.max_alias_expansion times the template and "
                "parameters)"
        );
    }
    return false;
}

Evaluated Evaluator::GetInput(const yaml::Node& call, const yaml::Node& args, const Path& path) {
    const yaml::Node* name_node = &args;
    if (args.IsSequence() && !args.items.empty()) {
        name_node = args.items.front();
    }
    if (!name_node->IsScalar()) {
        Fail(args, path, "get_input expects the name of an input, not " + yaml::Describe(args));
        return {&call, false};
    }
    const std::string& name = name_node->text;
    const InputSpec* input = topology_.FindInput(name);
    if (input == nullptr) {
        Fail(args, path, "No input with name " + name + " defined in the template (get_input of an undeclared input)");
        return {&call, false};
    }
    if (args.IsSequence() && args.items.size() > 1) {
        const std::string& type = input->def.schema.type;
        const ResolvedType* data = types_.Find(TypeKind::kData, type);
        const bool indexable =
            type == "list" || type == "map" ||
            (data != nullptr && (data->primitive.empty() || data->primitive == "list" || data->primitive == "map"));
        if (!indexable) {
            Fail(
                args,
                path,
                "get_input takes one input name; " + yaml::Describe(args) + " has " +
                    std::to_string(args.items.size()) + " arguments"
            );
            return {&call, false};
        }
    }
    if (input->value == nullptr) {
        if (inputs_given_ && !input->def.required) {
            Fail(
                args,
                path,
                "Failed to evaluate get_input: No input provided for <" + name +
                    "> and no default value provided in the definition"
            );
        }
        return {&call, false};
    }
    if (args.IsSequence() && args.items.size() > 1) {
        return Index({input->value, true}, call, args, 1, "get_input", path);
    }
    return {input->value, true};
}

const yaml::Node* Evaluator::CapabilityAssignment(const NodeTemplate& node, const std::string& capability) const {
    if (node.capabilities == nullptr || !node.capabilities->IsMapping()) {
        return nullptr;
    }
    const yaml::Node* cap = node.capabilities->Find(capability);
    return cap != nullptr && cap->IsMapping() ? cap : nullptr;
}

const PropertyDef* Evaluator::FindPropertyDef(
    const NodeTemplate& node, const std::string& capability, const std::string& property
) const {
    if (node.type == nullptr) {
        return nullptr;
    }
    if (capability.empty()) {
        return node.type->FindProperty(property);
    }
    const CapabilityDef* cap = node.type->FindCapability(capability);
    if (cap == nullptr) {
        return nullptr;
    }
    for (const auto& refined : cap->properties) {
        if (refined.name == property) {
            return &refined;
        }
    }
    const ResolvedType* cap_type = types_.Find(TypeKind::kCapability, cap->type);
    return cap_type != nullptr ? cap_type->FindProperty(property) : nullptr;
}

Evaluated Evaluator::Property(
    const NodeTemplate& node, const std::string& capability, const std::string& property, const Path& /*path*/
) {
    const auto key = std::make_tuple(&node, capability, property);
    if (const auto it = memo_.find(key); it != memo_.end()) {
        if (it->second.state == State::kInProgress) {
            sink_.Error(
                DiagnosticCode::kFunction,
                node.key,
                Path().Key("topology_template").Key("node_templates").Key(node.name),
                "Circular reference between functions: property '" + (capability.empty() ? "" : capability + ".") +
                    property + "' of node '" + node.name + "' depends on itself"
            );
            return {nullptr, false};
        }
        return it->second.result;
    }
    memo_[key] = Memo{};
    const yaml::Node* raw = nullptr;
    // Errors inside the property are reported at its own path, whoever asked for it first.
    const auto& stored = memo_.find(key)->first;  // map keys are stable: the path can view them
    const Path topology = Path().Key("topology_template");
    const Path nodes = topology.Key("node_templates");
    const Path base = nodes.Key(node.name);
    const Path caps = base.Key("capabilities");
    const Path cap = caps.Key(std::get<1>(stored));
    const Path props = (capability.empty() ? base : cap).Key("properties");
    const Path prop_path = props.Key(std::get<2>(stored));
    const yaml::Node* holder = capability.empty() ? node.properties : CapabilityAssignment(node, capability);
    if (holder != nullptr && holder->IsMapping()) {
        if (!capability.empty()) {
            holder = holder->Find("properties");
        }
        if (holder != nullptr && holder->IsMapping()) {
            raw = holder->Find(property);
        }
    }
    if (raw == nullptr || raw->IsNull()) {
        const PropertyDef* def = FindPropertyDef(node, capability, property);
        raw = def != nullptr ? def->default_value : nullptr;
    }
    Evaluated result{nullptr, true};
    if (raw != nullptr) {
        result = Evaluate(*raw, EvalScope{&node, nullptr, nullptr, false}, prop_path);
    }
    Memo& memo = memo_[key];
    memo.state = State::kDone;
    memo.result = result;
    return result;
}

const NodeTemplate* Evaluator::Entity(
    const yaml::Node& arg, const EvalScope& scope, bool allow_host, const std::string& function, const Path& path
) {
    if (!arg.IsScalar()) {
        Fail(arg, path, function + ": the first argument must name a node template, SELF, SOURCE, TARGET or HOST");
        return nullptr;
    }
    const std::string& name = arg.text;
    if (name == "SELF" || name == "HOST") {
        if (scope.self == nullptr) {
            Fail(
                arg,
                path,
                function + ": " + name + " cannot be used " + (scope.in_outputs ? "in outputs" : "here") +
                    "; name the node template"
            );
            return nullptr;
        }
        if (name == "SELF") {
            return scope.self;
        }
        if (!allow_host) {
            Fail(arg, path, "\"" + function + ": [ HOST, ... ]\" is not allowed here");
            return nullptr;
        }
        if (scope.self->host == nullptr) {
            Fail(
                arg,
                path,
                "\"" + function + ": [ HOST, ... ]\" was used in node template \"" + scope.self->name +
                    "\" but it has no tosca.relationships.HostedOn requirement"
            );
            return nullptr;
        }
        return scope.self->host;
    }
    if (name == "SOURCE" || name == "TARGET") {
        const NodeTemplate* node = name == "SOURCE" ? scope.source : scope.target;
        if (node == nullptr) {
            Fail(arg, path, function + ": " + name + " can only be used in a relationship");
        }
        return node;
    }
    const NodeTemplate* node = topology_.FindNode(name);
    if (node == nullptr) {
        Fail(arg, path, function + ": Node template \"" + name + "\" was not found");
    }
    return node;
}

Evaluated Evaluator::Index(
    Evaluated base,
    const yaml::Node& call,
    const yaml::Node& args,
    std::size_t first,
    const std::string& function,
    const Path& path
) {
    if (!base.resolved) {
        return {&call, false};
    }
    if (base.value == nullptr) {
        base.value = scratch_.Null(call.mark);  // declared but without value
    }
    for (std::size_t i = first; i < args.items.size(); ++i) {
        const yaml::Node& key = *args.items[i];
        const yaml::Node& value = *base.value;
        if (!key.IsScalar()) {
            Fail(key, path, function + ": index or key " + yaml::Describe(key) + " must be a number or a name");
            return {&call, false};
        }
        if (value.IsSequence()) {
            const auto index = yaml::ParseYamlInt(key.text);
            if (!index || *index < 0 || static_cast<std::size_t>(*index) >= value.items.size()) {
                Fail(
                    key,
                    path,
                    function + ": index " + key.text + " is out of range for a list of " +
                        std::to_string(value.items.size()) + " item(s)"
                );
                return {&call, false};
            }
            base.value = value.items[static_cast<std::size_t>(*index)];
        } else if (value.IsMapping()) {
            const yaml::Node* found = value.Find(key.text);
            if (found == nullptr) {
                Fail(key, path, function + ": key '" + key.text + "' is not in " + yaml::Describe(value));
                return {&call, false};
            }
            base.value = found;
        } else {
            Fail(
                key,
                path,
                function + ": cannot take '" + key.text + "' of the value " + yaml::Describe(value) +
                    ", which is not a list or map"
            );
            return {&call, false};
        }
    }
    return base;
}

Evaluated Evaluator::GetProperty(
    const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path
) {
    if (!args.IsSequence() || args.items.size() < 2) {
        Fail(
            args,
            path,
            "get_property expects [node, (capability or requirement,) property, ...], not " + yaml::Describe(args)
        );
        return {&call, false};
    }
    for (const yaml::Node* item : args.items) {
        if (!item->IsScalar()) {
            Fail(*item, path, "get_property arguments must be names or indexes, not " + yaml::Describe(*item));
            return {&call, false};
        }
    }
    const std::string& first = args.items[0]->text;
    if (first == "SELF" && scope.relationship != nullptr) {
        return RelationshipProperty(*scope.relationship, call, args, scope, path);
    }
    const NodeTemplate* node = Entity(*args.items[0], scope, true, "get_property", path);
    if (node != nullptr && first == "HOST") {
        node = HostHolding(node, args, false);
        if (node == nullptr) {
            Fail(
                args,
                path,
                "get_property: no host of \"" + scope.self->name + "\" declares property \"" + ArgsPath(args) + "\""
            );
            return {&call, false};
        }
    }
    if (node == nullptr) {
        return {&call, false};
    }
    const ValueSite site = Locate(*node, args, false);
    if (site.unbound) {
        return {&call, false};  // the requirement is not bound to a template
    }
    if (site.def == nullptr) {
        Fail(args, path, "get_property: " + site.missing);
        return {&call, false};
    }
    return Index(
        Property(*site.node, site.capability, site.def->name, path), call, args, site.next, "get_property", path
    );
}

Evaluated Evaluator::RelationshipProperty(
    const RequirementAssignment& rel,
    const yaml::Node& call,
    const yaml::Node& args,
    const EvalScope& scope,
    const Path& path
) {
    const std::string& prop = args.items[1]->text;
    const PropertyDef* def = rel.relationship_type != nullptr ? rel.relationship_type->FindProperty(prop) : nullptr;
    if (def == nullptr) {
        Fail(
            args,
            path,
            "get_property: Property \"" + prop + "\" was not found in relationship " +
                (rel.relationship_type != nullptr ? rel.relationship_type->name() : rel.name)
        );
        return {&call, false};
    }
    const yaml::Node* raw = rel.relationship_properties != nullptr && rel.relationship_properties->IsMapping()
                                ? rel.relationship_properties->Find(prop)
                                : nullptr;
    if (raw == nullptr) {
        raw = def->default_value;
    }
    const Evaluated value = raw != nullptr ? Evaluate(*raw, scope, path) : Evaluated{nullptr, true};
    return Index(value, call, args, 2, "get_property", path);
}

}  // namespace orch::tosca
