#include "types/type_parser.hpp"

#include "types/definition_parser.hpp"

#include <array>
#include <span>

namespace orch::tosca {
namespace {

void ReadCapabilities(const yaml::Node* node, const Path& path, GrammarContext& ctx, TypeDef& def) {
    if (node == nullptr || !ExpectMapping(node, path, "capabilities", ctx)) {
        return;
    }
    for (const auto& entry : node->entries) {
        const Path here = path.Key(entry.key->text);
        CapabilityDef cap;
        cap.name = entry.key->text;
        cap.at = entry.value;
        if (entry.value->IsScalar()) {
            cap.type = entry.value->text;  // short form: name: type
        } else if (ExpectMapping(entry.value, here, "a capability definition", ctx) && entry.value->IsMapping()) {
            const yaml::Node& m = *entry.value;
            CheckKeys(
                m,
                {"type", "description", "properties", "attributes", "valid_source_types", "occurrences"},
                here,
                "a capability definition",
                ctx
            );
            cap.type = ReadText(m.Find("type"), here.Key("type"), "type", ctx).value_or("");
            if (cap.type.empty()) {
                ctx.sink.Error(
                    DiagnosticCode::kMissingRequired, &m, here, "capability definition '" + cap.name + "' has no type"
                );
            }
            cap.properties =
                ParsePropertyDefs(m.Find("properties"), DefinitionKind::kProperty, here.Key("properties"), ctx);
            cap.attributes =
                ParsePropertyDefs(m.Find("attributes"), DefinitionKind::kAttribute, here.Key("attributes"), ctx);
            cap.valid_source_types =
                ReadNameList(m.Find("valid_source_types"), here.Key("valid_source_types"), "valid_source_types", ctx);
            if (auto occ = ParseOccurrences(m.Find("occurrences"), here.Key("occurrences"), ctx)) {
                cap.occurrences = *occ;
            }
        }
        def.capabilities.push_back(std::move(cap));
    }
}

void ReadRequirements(const yaml::Node* node, const Path& path, GrammarContext& ctx, TypeDef& def) {
    if (node == nullptr || !ExpectSequence(node, path, "requirements", ctx)) {
        return;
    }
    for (std::size_t i = 0; i < node->items.size(); ++i) {
        const Path item_path = path.Index(i);
        const yaml::Entry* entry = SingleEntry(*node->items[i], item_path, "a requirement definition", ctx);
        if (entry == nullptr) {
            continue;
        }
        const Path here = item_path.Key(entry->key->text);
        RequirementDef req;
        req.name = entry->key->text;
        req.at = entry->value;
        if (entry->value->IsScalar()) {
            req.capability = entry->value->text;  // short form: name: capability type
        } else if (ExpectMapping(entry->value, here, "a requirement definition", ctx) && entry->value->IsMapping()) {
            const yaml::Node& m = *entry->value;
            CheckKeys(
                m,
                {"capability", "node", "relationship", "occurrences", "description", "node_filter"},
                here,
                "a requirement definition",
                ctx
            );
            req.capability = ReadText(m.Find("capability"), here.Key("capability"), "capability", ctx).value_or("");
            if (req.capability.empty()) {
                ctx.sink.Error(
                    DiagnosticCode::kMissingRequired,
                    &m,
                    here,
                    "requirement definition '" + req.name + "' has no capability"
                );
            }
            req.node = ReadText(m.Find("node"), here.Key("node"), "node", ctx).value_or("");
            if (const yaml::Node* rel = m.Find("relationship"); rel != nullptr && rel->IsMapping()) {
                req.relationship =
                    ReadText(rel->Find("type"), here.Key("relationship").Key("type"), "type", ctx).value_or("");
            } else {
                req.relationship = ReadText(rel, here.Key("relationship"), "relationship", ctx).value_or("");
            }
            if (auto occ = ParseOccurrences(m.Find("occurrences"), here.Key("occurrences"), ctx)) {
                req.occurrences = *occ;
            }
        }
        def.requirements.push_back(std::move(req));
    }
}

/// Keys of an interface definition/type that are not operation names.
bool IsInterfaceGrammarKey(std::string_view key) {
    return key == "type" || key == "inputs" || key == "description" || key == "derived_from" || key == "version" ||
           key == "metadata" || key == "notifications" || key == "operations";
}

std::vector<std::string> OperationNames(const yaml::Node& node) {
    std::vector<std::string> out;
    for (const auto& entry : node.entries) {
        if (!IsInterfaceGrammarKey(entry.key->text)) {
            out.push_back(entry.key->text);
        }
    }
    if (const yaml::Node* ops = node.Find("operations"); ops != nullptr && ops->IsMapping()) {
        for (const auto& entry : ops->entries) {
            out.push_back(entry.key->text);
        }
    }
    return out;
}

void CheckInterfaceKeyVersions(const yaml::Node& itf, const Path& path, std::string_view what, GrammarContext& ctx) {
    for (const auto& entry : itf.entries) {
        if (entry.key->text == "operations" || entry.key->text == "notifications") {
            CheckKeyVersion(*entry.key, path.Key(entry.key->text), what, ctx);
        }
    }
}

void ReadInterfaces(const yaml::Node* node, const Path& path, GrammarContext& ctx, TypeDef& def) {
    if (node == nullptr || !ExpectMapping(node, path, "interfaces", ctx)) {
        return;
    }
    for (const auto& entry : node->entries) {
        InterfaceDef itf;
        itf.name = entry.key->text;
        itf.at = entry.value;
        if (entry.value->IsMapping()) {
            itf.type = ReadText(entry.value->Find("type"), path.Key(itf.name).Key("type"), "type", ctx).value_or("");
            itf.operations = OperationNames(*entry.value);
            CheckInterfaceKeyVersions(*entry.value, path.Key(itf.name), "an interface definition", ctx);
        } else if (!entry.value->IsNull()) {
            ctx.sink.Error(
                DiagnosticCode::kInvalidValue,
                entry.value,
                path.Key(itf.name),
                "an interface definition must be a mapping"
            );
        }
        def.interfaces.push_back(std::move(itf));
    }
}

void ReadArtifacts(const yaml::Node* node, const Path& path, GrammarContext& ctx, TypeDef& def) {
    if (node == nullptr || node->IsNull()) {
        return;
    }
    // A list of single-key maps is the Alien4Cloud form, used by the devel_deep INDIGO types.
    std::vector<yaml::Entry> entries;
    if (node->IsSequence()) {
        for (std::size_t i = 0; i < node->items.size(); ++i) {
            if (const yaml::Entry* entry = SingleEntry(*node->items[i], path.Index(i), "an artifact definition", ctx)) {
                entries.push_back(*entry);
            }
        }
    } else if (ExpectMapping(node, path, "artifacts", ctx)) {
        entries = node->entries;
    }
    for (const auto& entry : entries) {
        ArtifactDef artifact;
        artifact.name = entry.key->text;
        artifact.at = entry.value;
        if (entry.value->IsMapping()) {
            artifact.type =
                ReadText(entry.value->Find("type"), path.Key(artifact.name).Key("type"), "type", ctx).value_or("");
            if (entry.value->Find("file") == nullptr) {
                // Spec 1.3 §3.6.7: file is required (as in a node template's artifact).
                ctx.sink.StrictError(
                    ctx.strict,
                    DiagnosticCode::kMissingRequired,
                    entry.value,
                    path.Key(artifact.name),
                    "artifact '" + artifact.name + "' has no file"
                );
            }
        }
        def.artifacts.push_back(std::move(artifact));
    }
}

// Every type may have these keys; each kind adds its own.
void CheckTypeKeys(
    const yaml::Node& m,
    std::initializer_list<std::string_view> own,
    const Path& here,
    std::string_view what,
    GrammarContext& ctx
) {
    // A fixed buffer, not a vector: imported type files have hundreds of types.
    std::array<std::string_view, 12> allowed{"derived_from", "version", "metadata", "description", "properties"};
    std::size_t size = 5;
    for (const std::string_view key : own) {
        if (size < allowed.size()) {
            allowed[size++] = key;
        }
    }
    CheckKeys(m, std::span<const std::string_view>(allowed.data(), size), here, what, ctx);
}

void ReadKindSpecific(const yaml::Node& m, const Path& here, GrammarContext& ctx, TypeDef& def) {
    switch (def.kind) {
        case TypeKind::kData:
            CheckTypeKeys(m, {"constraints", "key_schema", "entry_schema"}, here, "a data type", ctx);
            def.constraints = ParseConstraints(m.Find("constraints"), here.Key("constraints"), ctx);
            def.entry_schema = ParseSchema(m.Find("entry_schema"), here.Key("entry_schema"), ctx);
            def.key_schema = ParseSchema(m.Find("key_schema"), here.Key("key_schema"), ctx);
            break;
        case TypeKind::kArtifact:
            CheckTypeKeys(m, {"mime_type", "file_ext"}, here, "an artifact type", ctx);
            break;
        case TypeKind::kCapability:
            CheckTypeKeys(m, {"attributes", "valid_source_types"}, here, "a capability type", ctx);
            def.valid_types =
                ReadNameList(m.Find("valid_source_types"), here.Key("valid_source_types"), "valid_source_types", ctx);
            break;
        case TypeKind::kInterface:
            // Operations are the remaining keys (1.0-1.2) or under `operations` (1.3).
            def.operations = OperationNames(m);
            CheckInterfaceKeyVersions(m, here, "an interface type", ctx);
            break;
        case TypeKind::kRelationship:
            CheckTypeKeys(m, {"attributes", "interfaces", "valid_target_types"}, here, "a relationship type", ctx);
            def.valid_types =
                ReadNameList(m.Find("valid_target_types"), here.Key("valid_target_types"), "valid_target_types", ctx);
            ReadInterfaces(m.Find("interfaces"), here.Key("interfaces"), ctx, def);
            break;
        case TypeKind::kNode:
            CheckTypeKeys(
                m, {"attributes", "requirements", "capabilities", "interfaces", "artifacts"}, here, "a node type", ctx
            );
            ReadCapabilities(m.Find("capabilities"), here.Key("capabilities"), ctx, def);
            ReadRequirements(m.Find("requirements"), here.Key("requirements"), ctx, def);
            ReadInterfaces(m.Find("interfaces"), here.Key("interfaces"), ctx, def);
            ReadArtifacts(m.Find("artifacts"), here.Key("artifacts"), ctx, def);
            break;
        case TypeKind::kGroup:
            CheckTypeKeys(
                m, {"attributes", "members", "interfaces", "requirements", "capabilities"}, here, "a group type", ctx
            );
            def.valid_types = ReadNameList(m.Find("members"), here.Key("members"), "members", ctx);
            ReadInterfaces(m.Find("interfaces"), here.Key("interfaces"), ctx, def);
            break;
        case TypeKind::kPolicy:
            CheckTypeKeys(m, {"targets", "triggers"}, here, "a policy type", ctx);
            def.valid_types = ReadNameList(m.Find("targets"), here.Key("targets"), "targets", ctx);
            break;
    }
}

std::unique_ptr<TypeDef> ParseTypeDef(TypeKind kind, const yaml::Entry& entry, const Path& here, GrammarContext& ctx) {
    auto def = std::make_unique<TypeDef>();
    def->kind = kind;
    def->name = entry.key->text;
    def->at = entry.key;
    const yaml::Node* node = entry.value;
    if (node->IsNull()) {
        return def;  // a type with nothing but its name derives from nothing
    }
    if (!ExpectMapping(node, here, "a type definition", ctx)) {
        return nullptr;
    }
    def->derived_from =
        ReadText(node->Find("derived_from"), here.Key("derived_from"), "derived_from", ctx).value_or("");
    if (kind != TypeKind::kInterface) {
        def->properties =
            ParsePropertyDefs(node->Find("properties"), DefinitionKind::kProperty, here.Key("properties"), ctx);
        def->attributes =
            ParsePropertyDefs(node->Find("attributes"), DefinitionKind::kAttribute, here.Key("attributes"), ctx);
    }
    ReadKindSpecific(*node, here, ctx, *def);
    return def;
}

}  // namespace

std::vector<std::unique_ptr<TypeDef>> ParseTypeSections(const yaml::Node& root, GrammarContext& ctx) {
    std::vector<std::unique_ptr<TypeDef>> out;
    if (!root.IsMapping()) {
        return out;
    }
    const Path top;
    for (const TypeKind kind : kAllTypeKinds) {
        const std::string_view section = TypeKindSection(kind);
        const yaml::Node* node = root.Find(section);
        if (node == nullptr || !ExpectMapping(node, top.Key(section), section, ctx)) {
            continue;
        }
        const Path section_path = top.Key(section);
        for (const auto& entry : node->entries) {
            if (auto def = ParseTypeDef(kind, entry, section_path.Key(entry.key->text), ctx)) {
                out.push_back(std::move(def));
            }
        }
    }
    return out;
}

}  // namespace orch::tosca
