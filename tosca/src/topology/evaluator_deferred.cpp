// Functions answered by the deployment (get_attribute, get_artifact, get_operation_output),
// checked statically here, and get_nodes_of_type.
#include "topology/evaluator.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

std::string ArgText(const yaml::Node& node) {
    return node.IsScalar() ? node.text : yaml::Describe(node);
}

}  // namespace

Evaluated Evaluator::GetAttribute(
    const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path
) {
    if (!args.IsSequence() || args.items.size() < 2) {
        Fail(
            args,
            path,
            "Illegal arguments for function \"get_attribute\": expected [node, (capability,) attribute, ...], not " +
                yaml::Describe(args)
        );
        return {&call, false};
    }
    if (args.items[0]->IsScalar() && args.items[0]->text == "HOST" && scope.in_outputs) {
        Fail(
            args, path, "\"get_attribute: [ HOST, ... ]\" is not allowed in \"outputs\" section of the TOSCA template"
        );
        return {&call, false};
    }
    const NodeTemplate* node = Entity(*args.items[0], scope, true, "get_attribute", path);
    if (node == nullptr || node->type == nullptr) {
        return {&call, false};
    }
    for (const yaml::Node* item : args.items) {
        if (!item->IsScalar()) {
            Fail(*item, path, "get_attribute arguments must be names or indexes, not " + yaml::Describe(*item));
            return {&call, false};
        }
    }
    if (args.items[0]->text == "HOST") {
        node = HostHolding(node, args, true);
        if (node == nullptr) {
            sink_.StrictError(
                strict_,
                DiagnosticCode::kFunction,
                &args,
                path,
                "get_attribute: no host of \"" + scope.self->name + "\" declares attribute \"" + ArgsPath(args) + "\""
            );
            return {&call, false};
        }
    }
    const ValueSite site = Locate(*node, args, true);
    if (site.unbound) {
        return {&call, false};
    }
    if (site.def == nullptr) {
        sink_.StrictError(strict_, DiagnosticCode::kFunction, &args, path, "get_attribute: " + site.missing);
        return {&call, false};
    }
    const std::size_t next = site.next;
    const Schema* schema = &site.def->schema;
    // Each further argument indexes a list, keys a map or names a data-type field.
    for (std::size_t i = next; i < args.items.size() && schema != nullptr; ++i) {
        const yaml::Node& arg = *args.items[i];
        const ResolvedType* data = types_.Find(TypeKind::kData, schema->type);
        const std::string kind = data != nullptr && !data->primitive.empty() ? data->primitive : schema->type;
        if (kind == "list") {
            if (!yaml::ParseYamlInt(arg.text)) {
                Fail(
                    arg,
                    path,
                    "Illegal arguments for function \"get_attribute\": \"" + arg.text + "\" is not a list index"
                );
                return {&call, false};
            }
            schema =
                schema->entry_schema ? schema->entry_schema.get() : (data != nullptr ? data->entry_schema : nullptr);
        } else if (kind == "map") {
            schema =
                schema->entry_schema ? schema->entry_schema.get() : (data != nullptr ? data->entry_schema : nullptr);
        } else if (data != nullptr && data->primitive.empty()) {
            const PropertyDef* field = data->FindProperty(arg.text);
            if (field == nullptr) {
                sink_.StrictError(
                    strict_,
                    DiagnosticCode::kFunction,
                    &arg,
                    path,
                    "get_attribute: data type " + data->name() + " has no field \"" + arg.text + "\""
                );
                break;
            }
            schema = &field->schema;
        } else {
            sink_.StrictError(
                strict_,
                DiagnosticCode::kFunction,
                &arg,
                path,
                "Illegal arguments for function \"get_attribute\". Unexpected attribute/index value \"" + arg.text +
                    "\" (the attribute is of type " + schema->type + ")"
            );
            break;
        }
    }
    return {&call, false};
}

Evaluated Evaluator::GetNodesOfType(const yaml::Node& call, const yaml::Node& args, const Path& path) {
    if (!args.IsScalar() || types_.Find(TypeKind::kNode, args.text) == nullptr) {
        Fail(args, path, "get_nodes_of_type expects a node type name, not " + yaml::Describe(args));
        return {&call, false};
    }
    yaml::Node* list = scratch_.New(yaml::NodeKind::kSequence, call.mark);
    list->source = call.source;
    const ResolvedType* wanted = types_.Find(TypeKind::kNode, args.text);
    for (const auto& node : topology_.nodes) {
        if (node->type != nullptr && node->type->DerivesFrom(wanted->name())) {
            list->items.push_back(scratch_.StrAt(node->name, call));
        }
    }
    return {list, true};
}

Evaluated Evaluator::GetArtifact(
    const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path
) {
    if (!args.IsSequence() || args.items.size() < 2 || args.items.size() > 4 || !args.items[1]->IsScalar()) {
        Fail(args, path, "get_artifact expects [node, artifact, (location, (remove))], not " + yaml::Describe(args));
        return {&call, false};
    }
    const NodeTemplate* node = Entity(*args.items[0], scope, true, "get_artifact", path);
    if (node == nullptr) {
        return {&call, false};
    }
    const std::string& name = args.items[1]->text;
    const bool in_template =
        node->artifacts != nullptr && node->artifacts->IsMapping() && node->artifacts->Find(name) != nullptr;
    const bool in_type =
        node->type != nullptr &&
        std::any_of(node->type->artifacts.begin(), node->type->artifacts.end(), [&](const ArtifactDef* a) {
            return a->name == name;
        });
    if (!in_template && !in_type) {
        Fail(
            *args.items[1], path, "get_artifact: node template \"" + node->name + "\" has no artifact \"" + name + "\""
        );
    }
    return {&call, false};
}

Evaluated Evaluator::GetOperationOutput(
    const yaml::Node& call, const yaml::Node& args, const EvalScope& scope, const Path& path
) {
    if (!args.IsSequence() || args.items.size() != 4) {
        Fail(
            args,
            path,
            "get_operation_output expects [entity, interface, operation, output], not " + yaml::Describe(args)
        );
        return {&call, false};
    }
    const NodeTemplate* node = Entity(*args.items[0], scope, true, "get_operation_output", path);
    if (node != nullptr && node->type != nullptr && args.items[1]->IsScalar() &&
        node->type->FindInterface(args.items[1]->text) == nullptr) {
        Fail(
            *args.items[1],
            path,
            "get_operation_output: node template \"" + node->name + "\" has no interface \"" + ArgText(*args.items[1]) +
                "\""
        );
    }
    return {&call, false};
}

}  // namespace orch::tosca
