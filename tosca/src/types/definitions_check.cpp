#include "types/definitions_check.hpp"

#include "values/value_checker.hpp"

namespace orch::tosca {
namespace {

void CheckSchemaTypes(
    const Schema& schema, ValueChecker& checker, const yaml::Node* at, const Path& path, GrammarContext& ctx
) {
    if (!schema.type.empty() && !checker.IsKnownValueType(schema.type)) {
        ctx.sink.Error(
            DiagnosticCode::kUnknownType,
            schema.at != nullptr ? schema.at : at,
            path.Key("type"),
            "unknown data type " + schema.type
        );
        return;
    }
    checker.CheckConstraintOperands(schema.type, schema.constraints, path.Key("constraints"));
    if (schema.entry_schema) {
        CheckSchemaTypes(*schema.entry_schema, checker, at, path.Key("entry_schema"), ctx);
    }
    if (schema.key_schema) {
        CheckSchemaTypes(*schema.key_schema, checker, at, path.Key("key_schema"), ctx);
    }
}

void ExpectKind(
    const TypeRegistry& registry,
    TypeKind kind,
    const std::string& name,
    const yaml::Node* at,
    const Path& path,
    GrammarContext& ctx
) {
    if (name.empty() || registry.Find(kind, name) != nullptr) {
        return;
    }
    const auto other = registry.KindOf(name);
    ctx.sink.Error(
        DiagnosticCode::kUnknownType,
        at,
        path,
        other ? name + " is a " + std::string(TypeKindWord(*other)) + " type, not a " +
                    std::string(TypeKindWord(kind)) + " type"
              : "unknown " + std::string(TypeKindWord(kind)) + " type " + name
    );
}

void CheckNodeMembers(
    const TypeDef& def, const TypeRegistry& registry, LiteralTyping typing, const Path& path, GrammarContext& ctx
) {
    for (const auto& cap : def.capabilities) {
        const Path caps = path.Key("capabilities");
        const Path here = caps.Key(cap.name);
        ExpectKind(registry, TypeKind::kCapability, cap.type, cap.at, here.Key("type"), ctx);
        CheckPropertyDefs(cap.properties, registry, typing, here.Key("properties"), ctx);
        for (const auto& source : cap.valid_source_types) {
            ExpectKind(registry, TypeKind::kNode, source, cap.at, here.Key("valid_source_types"), ctx);
        }
    }
    for (const auto& req : def.requirements) {
        const Path reqs = path.Key("requirements");
        const Path here = reqs.Key(req.name);
        ExpectKind(registry, TypeKind::kCapability, req.capability, req.at, here.Key("capability"), ctx);
        ExpectKind(registry, TypeKind::kNode, req.node, req.at, here.Key("node"), ctx);
        ExpectKind(registry, TypeKind::kRelationship, req.relationship, req.at, here.Key("relationship"), ctx);
    }
    for (const auto& artifact : def.artifacts) {
        ExpectKind(
            registry,
            TypeKind::kArtifact,
            artifact.type,
            artifact.at,
            path.Key("artifacts").Key(artifact.name).Key("type"),
            ctx
        );
    }
}

}  // namespace

void CheckPropertyDefs(
    const std::vector<PropertyDef>& defs,
    const TypeRegistry& registry,
    LiteralTyping typing,
    const Path& path,
    GrammarContext& ctx
) {
    ValueChecker checker(registry, typing, ctx.sink);
    for (const auto& def : defs) {
        const Path here = path.Key(def.name);
        if (def.schema.type.empty()) {
            continue;  // reported by the parser
        }
        CheckSchemaTypes(def.schema, checker, def.at, here, ctx);
        if (def.default_value != nullptr && checker.IsKnownValueType(def.schema.type)) {
            checker.Check(*def.default_value, def.schema, here.Key("default"));
        }
    }
}

void CheckDefinitions(const TypeRegistry& registry, LiteralTyping typing, GrammarContext& ctx) {
    for (const TypeDef* def : registry.own_defs()) {
        const Path section = Path().Key(TypeKindSection(def->kind));
        const Path path = section.Key(def->name);
        CheckPropertyDefs(def->properties, registry, typing, path.Key("properties"), ctx);
        CheckPropertyDefs(def->attributes, registry, typing, path.Key("attributes"), ctx);
        for (const auto& itf : def->interfaces) {
            ExpectKind(
                registry, TypeKind::kInterface, itf.type, itf.at, path.Key("interfaces").Key(itf.name).Key("type"), ctx
            );
        }
        switch (def->kind) {
            case TypeKind::kNode:
                CheckNodeMembers(*def, registry, typing, path, ctx);
                break;
            case TypeKind::kRelationship:
                for (const auto& target : def->valid_types) {
                    if (registry.Find(TypeKind::kCapability, target) == nullptr &&
                        registry.Find(TypeKind::kNode, target) == nullptr) {
                        ctx.sink.Error(
                            DiagnosticCode::kUnknownType,
                            def->at,
                            path.Key("valid_target_types"),
                            "unknown capability or node type " + target
                        );
                    }
                }
                break;
            case TypeKind::kData: {
                const ResolvedType* resolved = registry.Find(TypeKind::kData, def->name);
                if (resolved != nullptr && !resolved->primitive.empty()) {
                    ValueChecker checker(registry, typing, ctx.sink);
                    checker.CheckConstraintOperands(resolved->primitive, def->constraints, path.Key("constraints"));
                }
                break;
            }
            default:
                break;
        }
    }
}

}  // namespace orch::tosca
