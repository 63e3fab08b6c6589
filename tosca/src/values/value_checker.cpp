#include "values/value_checker.hpp"

#include "types/definition_parser.hpp"

namespace orch::tosca {
namespace {

constexpr int kMaxTypeDepth = 32;  // data types nested in data types; bounds recursion

std::vector<const Constraint*> Pointers(const std::vector<Constraint>& constraints) {
    std::vector<const Constraint*> out;
    out.reserve(constraints.size());
    for (const auto& c : constraints) {
        out.push_back(&c);
    }
    return out;
}

bool IsOrdering(ConstraintOp op) {
    return op == ConstraintOp::kGreaterThan || op == ConstraintOp::kGreaterOrEqual || op == ConstraintOp::kLessThan ||
           op == ConstraintOp::kLessOrEqual || op == ConstraintOp::kInRange;
}

bool IsLength(ConstraintOp op) {
    return op == ConstraintOp::kLength || op == ConstraintOp::kMinLength || op == ConstraintOp::kMaxLength;
}

std::string Shown(const yaml::Node& value) {
    return value.IsScalar() ? "\"" + value.text + "\"" : yaml::Describe(value);
}

}  // namespace

std::size_t Utf8Length(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            ++n;
        }
    }
    return n;
}

void ValueChecker::Report(
    const yaml::Node& at, const Path& path, std::string message, std::optional<DiagnosticCode> code
) {
    if (IsLenient(at)) {
        sink_.Warning(
            code.value_or(code_),
            Where(at),
            path,
            message + " (accepted in compatibility mode: the original does not type-check values computed by functions)"
        );
        return;
    }
    sink_.Error(code.value_or(code_), Where(at), path, std::move(message));
}

Json ValueChecker::Reject(
    const yaml::Node& at, const Path& path, std::string message, std::optional<DiagnosticCode> code
) {
    Report(at, path, std::move(message), code);
    return IsLenient(at) ? yaml::ToJson(at) : Json(nullptr);
}

bool ValueChecker::IsKnownValueType(std::string_view type) const {
    return PrimitiveFromName(type).has_value() || types_.Find(TypeKind::kData, type) != nullptr;
}

Json ValueChecker::Check(const yaml::Node& value, const Schema& schema, const Path& path) {
    return CheckType(
        value, schema.type, Pointers(schema.constraints), schema.entry_schema.get(), schema.key_schema.get(), path
    );
}

Json ValueChecker::CheckType(
    const yaml::Node& value,
    std::string_view type,
    const std::vector<const Constraint*>& constraints,
    const Schema* entry_schema,
    const Schema* key_schema,
    const Path& path
) {
    if (value.IsNull() || yaml::FunctionName(value)) {
        return yaml::ToJson(value);  // no value, or a value known only later
    }
    if (type.empty()) {
        return yaml::ToJson(value);  // untyped (list/map without entry_schema)
    }
    if (const auto p = PrimitiveFromName(type)) {
        return CheckPrimitive(value, *p, constraints, entry_schema, key_schema, path);
    }
    const ResolvedType* data = types_.Find(TypeKind::kData, type);
    if (data == nullptr) {
        return Reject(value, path, "unknown data type " + std::string(type), DiagnosticCode::kUnknownType);
    }
    if (depth_ >= kMaxTypeDepth) {
        return Reject(value, path, "data types nest deeper than " + std::to_string(kMaxTypeDepth) + " levels");
    }
    ++depth_;
    Json out;
    if (!data->primitive.empty()) {
        std::vector<const Constraint*> all = data->constraints;
        all.insert(all.end(), constraints.begin(), constraints.end());
        out = CheckType(
            value,
            data->primitive,
            all,
            entry_schema != nullptr ? entry_schema : data->entry_schema,
            key_schema != nullptr ? key_schema : data->key_schema,
            path
        );
    } else {
        out = CheckComplex(value, *data, path);
    }
    --depth_;
    return out;
}

Json ValueChecker::CheckPrimitive(
    const yaml::Node& value,
    Primitive p,
    const std::vector<const Constraint*>& constraints,
    const Schema* entry_schema,
    const Schema* key_schema,
    const Path& path
) {
    if (p == Primitive::kList) {
        return CheckList(value, constraints, entry_schema, path);
    }
    if (p == Primitive::kMap) {
        return CheckMap(value, constraints, entry_schema, key_schema, path);
    }
    auto typed = ParsePrimitive(value, p, typing_);
    if (!typed) {
        return Reject(value, path, typed.error().message);
    }
    const std::size_t length = p == Primitive::kString ? Utf8Length(typed->text) : 0;
    ApplyConstraints(value, &*typed, length, p, constraints, path);
    return typed->ToJson();
}

Json ValueChecker::CheckList(
    const yaml::Node& value,
    const std::vector<const Constraint*>& constraints,
    const Schema* entry_schema,
    const Path& path
) {
    if (!value.IsSequence()) {
        return Reject(value, path, Shown(value) + " is not a list");
    }
    Json out = Json::array();
    for (std::size_t i = 0; i < value.items.size(); ++i) {
        const yaml::Node& item = *value.items[i];
        out.push_back(entry_schema != nullptr ? Check(item, *entry_schema, path.Index(i)) : yaml::ToJson(item));
    }
    ApplyConstraints(value, nullptr, value.items.size(), Primitive::kList, constraints, path);
    return out;
}

Json ValueChecker::CheckMap(
    const yaml::Node& value,
    const std::vector<const Constraint*>& constraints,
    const Schema* entry_schema,
    const Schema* key_schema,
    const Path& path
) {
    if (!value.IsMapping()) {
        return Reject(value, path, Shown(value) + " is not a map");
    }
    Json out = Json::object();
    for (const auto& entry : value.entries) {
        const Path here = path.Key(entry.key->text);
        if (key_schema != nullptr) {
            Check(*entry.key, *key_schema, here);
        }
        out[entry.key->text] =
            entry_schema != nullptr ? Check(*entry.value, *entry_schema, here) : yaml::ToJson(*entry.value);
    }
    ApplyConstraints(value, nullptr, value.entries.size(), Primitive::kMap, constraints, path);
    return out;
}

Json ValueChecker::CheckComplex(const yaml::Node& value, const ResolvedType& type, const Path& path) {
    if (!value.IsMapping()) {
        return Reject(value, path, Shown(value) + " is not a map of the fields of " + type.name());
    }
    Json out = Json::object();
    for (const auto& entry : value.entries) {
        if (type.FindProperty(entry.key->text) == nullptr) {
            Report(
                *entry.key,
                path.Key(entry.key->text),
                "unknown field '" + entry.key->text + "' for data type " + type.name(),
                DiagnosticCode::kUnknownField
            );
        }
    }
    for (const PropertyDef* field : type.properties) {
        const yaml::Node* given = value.Find(field->name);
        if (given == nullptr || given->IsNull()) {
            if (field->default_value != nullptr) {
                out[field->name] = Check(*field->default_value, field->schema, path.Key(field->name));
            } else if (field->required) {
                Report(
                    value,
                    path.Key(field->name),
                    "required field '" + field->name + "' of data type " + type.name() + " is missing",
                    DiagnosticCode::kMissingRequired
                );
            }
            continue;
        }
        out[field->name] = Check(*given, field->schema, path.Key(field->name));
    }
    return out;
}

void ValueChecker::ApplyConstraints(
    const yaml::Node& value,
    const TypedValue* typed,
    std::size_t length,
    Primitive p,
    const std::vector<const Constraint*>& constraints,
    const Path& path
) {
    for (const Constraint* c : constraints) {
        if (!CheckOne(*c, value, typed, length, p, path)) {
            return;  // one violated constraint is enough to act on
        }
    }
}

bool ValueChecker::CheckOne(
    const Constraint& c,
    const yaml::Node& value,
    const TypedValue* typed,
    std::size_t length,
    Primitive p,
    const Path& path
) {
    const std::string op(ConstraintOpName(c.op));
    if (IsLength(c.op)) {
        if (typed != nullptr && p != Primitive::kString) {
            return true;  // reported once when the definition is checked
        }
        const auto bound = static_cast<std::size_t>(yaml::ParseYamlInt(c.arg->text).value_or(0));
        const bool ok = c.op == ConstraintOp::kLength      ? length == bound
                        : c.op == ConstraintOp::kMinLength ? length >= bound
                                                           : length <= bound;
        if (!ok) {
            Report(
                value,
                path,
                Shown(value) + " has length " + std::to_string(length) + "; " + op + " is " + std::to_string(bound)
            );
        }
        return ok;
    }
    if (c.op == ConstraintOp::kPattern) {
        if (typed == nullptr || c.regex == nullptr) {
            return true;
        }
        constexpr std::size_t kMaxMatched = 64 * 1024;
        const bool ok = typed->text.size() <= kMaxMatched && c.regex->FullMatch(typed->text);
        if (!ok) {
            Report(value, path, Shown(value) + " does not match the pattern \"" + c.regex->pattern() + "\"");
        }
        return ok;
    }
    if (typed == nullptr) {
        return true;  // ordering and equality constraints apply to scalars only
    }
    const auto operand = [&](const yaml::Node& n) -> std::optional<TypedValue> {
        auto parsed = ParsePrimitive(n, p, LiteralTyping::kTextual);
        return parsed ? std::optional<TypedValue>(std::move(*parsed)) : std::nullopt;
    };
    if (c.op == ConstraintOp::kValidValues) {
        for (const yaml::Node* item : c.arg->items) {
            const auto v = operand(*item);
            if (v && EqualTyped(*typed, *v)) {
                return true;
            }
        }
        Report(value, path, Shown(value) + " is not one of the valid values " + yaml::Describe(*c.arg));
        return false;
    }
    if (c.op == ConstraintOp::kEqual) {
        const auto v = operand(*c.arg);
        if (v && EqualTyped(*typed, *v)) {
            return true;
        }
        Report(value, path, Shown(value) + " must equal " + Shown(*c.arg));
        return false;
    }
    if (c.op == ConstraintOp::kInRange && typed->kind == TypedValue::Kind::kRange) {
        // A range is in range when it lies within the bounds.
        const auto lo = c.arg->items[0]->IsScalar() ? yaml::ParseYamlInt(c.arg->items[0]->text) : std::nullopt;
        const bool open = c.arg->items[1]->IsScalar() && c.arg->items[1]->text == "UNBOUNDED";
        const auto hi = c.arg->items[1]->IsScalar() ? yaml::ParseYamlInt(c.arg->items[1]->text) : std::nullopt;
        const Range& r = typed->range;
        const bool ok = lo && r.min >= *lo && (open || (hi && !r.unbounded && r.max <= *hi));
        if (!ok) {
            Report(
                value,
                path,
                yaml::Describe(value) + " is not within the range " + yaml::Describe(*c.arg) + " (in_range)"
            );
        }
        return ok;
    }
    if (typed->kind == TypedValue::Kind::kRange) {
        return true;  // other operators do not apply to ranges
    }
    if (c.op == ConstraintOp::kInRange) {
        const auto lo = operand(*c.arg->items[0]);
        const bool unbounded = c.arg->items[1]->IsScalar() && c.arg->items[1]->text == "UNBOUNDED";
        const auto hi = unbounded ? std::nullopt : operand(*c.arg->items[1]);
        const auto above = lo ? CompareTyped(*typed, *lo) : std::nullopt;
        const auto below = hi ? CompareTyped(*typed, *hi) : std::nullopt;
        const bool ok = above && *above >= 0 && (unbounded || (below && *below <= 0));
        if (!ok) {
            Report(value, path, Shown(value) + " is out of the range " + yaml::Describe(*c.arg) + " (in_range)");
        }
        return ok;
    }
    const auto bound = operand(*c.arg);
    const auto cmp = bound ? CompareTyped(*typed, *bound) : std::nullopt;
    if (!cmp) {
        return true;  // operand of another type: reported when the definition is checked
    }
    bool ok = true;
    std::string relation;
    switch (c.op) {
        case ConstraintOp::kGreaterThan:
            ok = *cmp > 0;
            relation = "greater than";
            break;
        case ConstraintOp::kGreaterOrEqual:
            ok = *cmp >= 0;
            relation = "at least";
            break;
        case ConstraintOp::kLessThan:
            ok = *cmp < 0;
            relation = "less than";
            break;
        case ConstraintOp::kLessOrEqual:
            ok = *cmp <= 0;
            relation = "at most";
            break;
        default:
            break;
    }
    if (!ok) {
        Report(value, path, Shown(value) + " must be " + relation + " " + Shown(*c.arg) + " (" + op + ")");
    }
    return ok;
}

void ValueChecker::CheckConstraintOperands(
    std::string_view type, const std::vector<Constraint>& constraints, const Path& path
) {
    std::string base(type);
    if (const ResolvedType* data = types_.Find(TypeKind::kData, type); data != nullptr && !data->primitive.empty()) {
        base = data->primitive;
    }
    const auto p = PrimitiveFromName(base);
    for (const auto& c : constraints) {
        const Path here = path.Key(ConstraintOpName(c.op));
        if (!p) {
            if (!IsLength(c.op) && c.op != ConstraintOp::kValidValues && c.op != ConstraintOp::kEqual) {
                sink_.Error(
                    DiagnosticCode::kInvalidValue,
                    c.arg,
                    here,
                    std::string(ConstraintOpName(c.op)) + " does not apply to values of type " + std::string(type)
                );
            }
            continue;
        }
        const bool collection = *p == Primitive::kList || *p == Primitive::kMap;
        if (IsLength(c.op) || c.op == ConstraintOp::kPattern) {
            if ((IsLength(c.op) && *p != Primitive::kString && !collection) ||
                (c.op == ConstraintOp::kPattern && *p != Primitive::kString)) {
                sink_.Error(
                    DiagnosticCode::kInvalidValue,
                    c.arg,
                    here,
                    std::string(ConstraintOpName(c.op)) + " does not apply to values of type " + std::string(type)
                );
            }
            continue;
        }
        if (collection || (IsOrdering(c.op) && (*p == Primitive::kBoolean || *p == Primitive::kString))) {
            if (IsOrdering(c.op)) {
                sink_.Error(
                    DiagnosticCode::kInvalidValue,
                    c.arg,
                    here,
                    std::string(ConstraintOpName(c.op)) + " does not apply to values of type " + std::string(type)
                );
            }
            continue;
        }
        std::vector<const yaml::Node*> operands;
        if (c.op == ConstraintOp::kInRange || c.op == ConstraintOp::kValidValues) {
            operands = c.arg->items;
        } else {
            operands.push_back(c.arg);
        }
        for (const yaml::Node* operand : operands) {
            if (c.op == ConstraintOp::kInRange && operand->IsScalar() && operand->text == "UNBOUNDED") {
                continue;
            }
            auto parsed =
                ParsePrimitive(*operand, *p == Primitive::kRange ? Primitive::kInteger : *p, LiteralTyping::kTextual);
            if (!parsed) {
                sink_.Error(
                    DiagnosticCode::kInvalidValue, operand, here, "constraint operand: " + parsed.error().message
                );
            }
        }
    }
}

}  // namespace orch::tosca
