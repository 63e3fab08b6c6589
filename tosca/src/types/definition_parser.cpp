#include "types/definition_parser.hpp"

#include <array>
#include <utility>

namespace orch::tosca {
namespace {

constexpr std::array<std::pair<std::string_view, ConstraintOp>, 11> kOps = {{
    {"equal", ConstraintOp::kEqual},
    {"greater_than", ConstraintOp::kGreaterThan},
    {"greater_or_equal", ConstraintOp::kGreaterOrEqual},
    {"less_than", ConstraintOp::kLessThan},
    {"less_or_equal", ConstraintOp::kLessOrEqual},
    {"in_range", ConstraintOp::kInRange},
    {"valid_values", ConstraintOp::kValidValues},
    {"length", ConstraintOp::kLength},
    {"min_length", ConstraintOp::kMinLength},
    {"max_length", ConstraintOp::kMaxLength},
    {"pattern", ConstraintOp::kPattern},
}};

std::optional<ConstraintOp> OpFromName(std::string_view name) {
    for (const auto& [text, op] : kOps) {
        if (text == name) {
            return op;
        }
    }
    return std::nullopt;
}

// What the operand of `op` must be, when `arg` is not that.
std::optional<std::string> OperandNeeds(ConstraintOp op, const yaml::Node& arg) {
    switch (op) {
        case ConstraintOp::kInRange:
            if (arg.IsSequence() && arg.items.size() == 2) {
                return std::nullopt;
            }
            return "in_range needs a list of two bounds [min, max]";
        case ConstraintOp::kValidValues:
            return arg.IsSequence() ? std::nullopt : std::optional<std::string>("valid_values needs a list of values");
        case ConstraintOp::kLength:
        case ConstraintOp::kMinLength:
        case ConstraintOp::kMaxLength: {
            const auto value = arg.IsScalar() ? yaml::ParseYamlInt(arg.text) : std::nullopt;
            if (value && *value >= 0) {
                return std::nullopt;
            }
            return std::string(ConstraintOpName(op)) + " needs a non-negative integer";
        }
        case ConstraintOp::kPattern:
            return arg.IsScalar() ? std::nullopt
                                  : std::optional<std::string>("pattern needs a regular expression text");
        default:
            if (arg.IsScalar() || op == ConstraintOp::kEqual) {
                return std::nullopt;
            }
            return std::string(ConstraintOpName(op)) + " needs a single value";
    }
}

bool CheckOperandShape(ConstraintOp op, const yaml::Node& arg, const Path& path, GrammarContext& ctx) {
    const auto needs = OperandNeeds(op, arg);
    if (!needs) {
        return true;
    }
    ctx.sink.Error(DiagnosticCode::kInvalidValue, &arg, path, *needs + ", not " + yaml::Describe(arg));
    return false;
}

void AddConstraint(
    const yaml::Entry& entry, const yaml::Node* at, const Path& path, GrammarContext& ctx, std::vector<Constraint>& out
) {
    const auto op = OpFromName(entry.key->text);
    if (!op) {
        ctx.sink.StrictError(
            ctx.strict,
            DiagnosticCode::kUnknownField,
            entry.key,
            path.Key(entry.key->text),
            "unknown constraint operator '" + entry.key->text + "'" + (ctx.strict ? "" : " (ignored)")
        );
        return;
    }
    if (!CheckOperandShape(*op, *entry.value, path.Key(entry.key->text), ctx)) {
        return;
    }
    for (const auto& existing : out) {
        if (existing.op == *op) {
            ctx.sink.StrictError(
                ctx.strict,
                DiagnosticCode::kInvalidValue,
                entry.key,
                path.Key(entry.key->text),
                "constraint operator '" + entry.key->text + "' is given twice"
            );
        }
    }
    Constraint constraint{*op, entry.value, at, nullptr};
    if (*op == ConstraintOp::kPattern) {
        auto regex = Regex::Compile(entry.value->text);
        if (!regex) {
            ctx.sink.Error(DiagnosticCode::kInvalidValue, entry.value, path.Key("pattern"), regex.error().message);
            return;
        }
        constraint.regex = std::make_shared<const Regex>(std::move(*regex));
    }
    out.push_back(std::move(constraint));
}

}  // namespace

std::string_view ConstraintOpName(ConstraintOp op) {
    for (const auto& [text, candidate] : kOps) {
        if (candidate == op) {
            return text;
        }
    }
    return "equal";
}

std::vector<Constraint> ParseConstraints(const yaml::Node* node, const Path& path, GrammarContext& ctx) {
    std::vector<Constraint> out;
    if (node == nullptr || node->IsNull()) {
        return out;
    }
    if (node->IsMapping()) {
        ctx.sink.StrictError(
            ctx.strict,
            DiagnosticCode::kInvalidValue,
            node,
            path,
            "constraints must be a list of single-key maps (- operator: value); a mapping is accepted for compatibility"
        );
        for (const auto& entry : node->entries) {
            AddConstraint(entry, node, path, ctx, out);
        }
        return out;
    }
    if (!ExpectSequence(node, path, "constraints", ctx)) {
        return out;
    }
    for (std::size_t i = 0; i < node->items.size(); ++i) {
        const yaml::Node& item = *node->items[i];
        if (const yaml::Entry* entry = SingleEntry(item, path.Index(i), "a constraint", ctx)) {
            AddConstraint(*entry, &item, path.Index(i), ctx, out);
        }
    }
    return out;
}

std::shared_ptr<const Schema> ParseSchema(const yaml::Node* node, const Path& path, GrammarContext& ctx) {
    if (node == nullptr || node->IsNull()) {
        return nullptr;
    }
    auto schema = std::make_shared<Schema>();
    schema->at = node;
    if (node->IsScalar()) {
        schema->type = node->text;  // short form: entry_schema: string
        return schema;
    }
    if (!ExpectMapping(node, path, "a schema", ctx)) {
        return nullptr;
    }
    CheckKeys(
        *node, {"type", "description", "constraints", "entry_schema", "key_schema", "metadata"}, path, "a schema", ctx
    );
    if (auto type = ReadText(node->Find("type"), path.Key("type"), "type", ctx)) {
        schema->type = std::move(*type);
    } else {
        ctx.sink.Error(DiagnosticCode::kMissingRequired, node, path, "the schema has no type");
    }
    schema->constraints = ParseConstraints(node->Find("constraints"), path.Key("constraints"), ctx);
    schema->entry_schema = ParseSchema(node->Find("entry_schema"), path.Key("entry_schema"), ctx);
    schema->key_schema = ParseSchema(node->Find("key_schema"), path.Key("key_schema"), ctx);
    return schema;
}

std::optional<PropertyDef> ParsePropertyDef(
    const yaml::Entry& entry, DefinitionKind kind, const Path& path, GrammarContext& ctx
) {
    const yaml::Node* node = entry.value;
    PropertyDef def;
    def.name = entry.key->text;
    def.key = entry.key;
    def.at = node;
    if (node->IsScalar() && kind == DefinitionKind::kParameter) {
        def.default_value = node;  // operation inputs may be plain values
        def.required = false;
        return def;
    }
    if (!node->IsMapping()) {
        ctx.sink.Error(
            DiagnosticCode::kInvalidValue,
            node,
            path,
            "the definition of '" + def.name + "' must be a mapping with at least a type"
        );
        return std::nullopt;
    }
    switch (kind) {
        case DefinitionKind::kAttribute:
            CheckKeys(
                *node,
                {"type", "description", "default", "status", "entry_schema", "key_schema", "metadata"},
                path,
                "an attribute definition",
                ctx
            );
            break;
        case DefinitionKind::kInput:
            CheckKeys(
                *node,
                {"type",
                 "description",
                 "required",
                 "default",
                 "status",
                 "constraints",
                 "entry_schema",
                 "key_schema",
                 "metadata",
                 "value"},
                path,
                "an input definition",
                ctx
            );
            break;
        default:
            CheckKeys(
                *node,
                {"type",
                 "description",
                 "required",
                 "default",
                 "status",
                 "constraints",
                 "entry_schema",
                 "key_schema",
                 "metadata",
                 "external-schema",
                 "value"},
                path,
                "a property definition",
                ctx
            );
            break;
    }
    if (auto type = ReadText(node->Find("type"), path.Key("type"), "type", ctx)) {
        def.schema.type = std::move(*type);
    } else if (kind != DefinitionKind::kParameter) {
        ctx.sink.Error(
            DiagnosticCode::kMissingRequired, node, path, "the definition of '" + def.name + "' has no type"
        );
    }
    def.schema.at = node;
    def.schema.constraints = ParseConstraints(node->Find("constraints"), path.Key("constraints"), ctx);
    def.schema.entry_schema = ParseSchema(node->Find("entry_schema"), path.Key("entry_schema"), ctx);
    def.schema.key_schema = ParseSchema(node->Find("key_schema"), path.Key("key_schema"), ctx);
    if (const auto required = ReadFlag(node->Find("required"), path.Key("required"), "required", ctx)) {
        def.required = *required;
    }
    if (const yaml::Node* value = node->Find("default"); value != nullptr && !value->IsNull()) {
        def.default_value = value;
    }
    return def;
}

std::vector<PropertyDef> ParsePropertyDefs(
    const yaml::Node* node, DefinitionKind kind, const Path& path, GrammarContext& ctx
) {
    std::vector<PropertyDef> out;
    if (node == nullptr || !ExpectMapping(node, path, "a definitions section", ctx)) {
        return out;
    }
    out.reserve(node->entries.size());
    for (const auto& entry : node->entries) {
        if (auto def = ParsePropertyDef(entry, kind, path.Key(entry.key->text), ctx)) {
            out.push_back(std::move(*def));
        }
    }
    return out;
}

std::optional<Occurrences> ParseOccurrences(const yaml::Node* node, const Path& path, GrammarContext& ctx) {
    if (node == nullptr || node->IsNull()) {
        return std::nullopt;
    }
    const auto bound = [](const yaml::Node* n) -> std::optional<std::int64_t> {
        if (!n->IsScalar()) {
            return std::nullopt;
        }
        if (n->text == "UNBOUNDED") {
            return -1;
        }
        const auto value = yaml::ParseYamlInt(n->text);
        return value && *value >= 0 ? value : std::nullopt;
    };
    if (node->IsSequence() && node->items.size() == 2) {
        const auto min = bound(node->items[0]);
        const auto max = bound(node->items[1]);
        if (min && max && *min >= 0 && (*max == -1 || *max >= *min)) {
            return Occurrences{*min, *max};
        }
    }
    ctx.sink.Error(
        DiagnosticCode::kInvalidValue,
        node,
        path,
        "occurrences must be [min, max] with 0 <= min <= max (max may be UNBOUNDED), not " + yaml::Describe(*node)
    );
    return std::nullopt;
}

}  // namespace orch::tosca
