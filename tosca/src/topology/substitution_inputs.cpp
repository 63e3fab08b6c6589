// substitution_mappings (spec 1.3 §3.8.13, §2.10): the topology stands for a node of the
// substituted type, whose properties reach it as inputs. An input whose value (default or the
// user's) the property's type or constraints refuse would make every substitution invalid.
#include "topology/topology_checker.hpp"

#include <utility>

namespace orch::tosca {
namespace {

/// The input an explicit property mapping names: `p: input` (1.3), `p: [input]` (1.2) or
/// `p: {get_input: input}`; empty for a value mapping or anything else.
std::string MappedInput(const yaml::Node& mapping) {
    if (mapping.IsScalar()) {
        return mapping.text;
    }
    if (mapping.IsSequence() && mapping.items.size() == 1 && mapping.items[0]->IsScalar()) {
        return mapping.items[0]->text;
    }
    if (mapping.IsMapping() && mapping.entries.size() == 1 && mapping.entries[0].key->text == "get_input" &&
        mapping.entries[0].value->IsScalar()) {
        return mapping.entries[0].value->text;
    }
    return {};
}

}  // namespace

void TopologyChecker::CheckSubstitutedInputs(const yaml::Node& mappings, const ResolvedType& type, const Path& path) {
    // Which input feeds which property: the explicit mapping (1.2+), else inputs named like a
    // property (1.0/1.1, as tosca-parser reads them).
    std::vector<std::pair<const InputSpec*, const PropertyDef*>> pairs;
    const yaml::Node* explicit_map = mappings.Find("properties");
    if (explicit_map != nullptr && explicit_map->IsMapping()) {
        const Path properties = path.Key("properties");  // a Path views its parent
        for (const auto& entry : explicit_map->entries) {
            const Path here = properties.Key(entry.key->text);
            const PropertyDef* def = type.FindProperty(entry.key->text);
            if (def == nullptr) {
                sink_.StrictError(
                    strict(),
                    DiagnosticCode::kUnknownField,
                    entry.key,
                    here,
                    "substitution_mappings maps property '" + entry.key->text + "', which node type " + type.name() +
                        " does not declare"
                );
                continue;
            }
            const std::string input = MappedInput(*entry.value);
            const InputSpec* spec = input.empty() ? nullptr : topology_.FindInput(input);
            if (spec != nullptr) {
                pairs.emplace_back(spec, def);
            } else if (!input.empty() && !entry.value->IsScalar()) {
                sink_.StrictError(
                    strict(),
                    DiagnosticCode::kFunction,
                    entry.value,
                    here,
                    "substitution_mappings maps property '" + entry.key->text + "' to input '" + input +
                        "', which the topology does not declare"
                );
            }
        }
    } else {
        for (const auto& input : topology_.inputs) {
            if (const PropertyDef* def = type.FindProperty(input.def.name)) {
                pairs.emplace_back(&input, def);
            }
        }
    }
    const LiteralTyping typing = strict() ? LiteralTyping::kYamlTyped : LiteralTyping::kTextual;
    for (const auto& [input, def] : pairs) {
        if (input->value == nullptr || !checker_.IsKnownValueType(def->schema.type)) {
            continue;
        }
        DiagSink quiet(1);
        ValueChecker(types_, typing, quiet).Check(*input->value, def->schema, path);
        const std::vector<Diagnostic> found = quiet.Take();
        if (!HasErrors(found)) {
            continue;
        }
        sink_.StrictError(
            strict(),
            DiagnosticCode::kInputValue,
            input->from_user ? input->def.key : input->value,
            Path().Key("topology_template").Key("inputs").Key(input->def.name),
            "input '" + input->def.name + "' does not satisfy property '" + def->name +
                "' of the substituted node type " + type.name() + ": " + found.front().message
        );
    }
}

}  // namespace orch::tosca
