#include "values/typed_value.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace orch::tosca {
namespace {

constexpr std::array<std::pair<std::string_view, Primitive>, 13> kPrimitives = {{
    {"string", Primitive::kString},
    {"integer", Primitive::kInteger},
    {"float", Primitive::kFloat},
    {"boolean", Primitive::kBoolean},
    {"timestamp", Primitive::kTimestamp},
    {"version", Primitive::kVersion},
    {"range", Primitive::kRange},
    {"list", Primitive::kList},
    {"map", Primitive::kMap},
    {"scalar-unit.size", Primitive::kSize},
    {"scalar-unit.time", Primitive::kTime},
    {"scalar-unit.frequency", Primitive::kFrequency},
    {"scalar-unit.bitrate", Primitive::kBitrate},
}};

std::string_view YamlTypeWord(yaml::ScalarType t) {
    switch (t) {
        case yaml::ScalarType::kNull:
            return "null";
        case yaml::ScalarType::kBool:
            return "a boolean";
        case yaml::ScalarType::kInt:
            return "an integer";
        case yaml::ScalarType::kFloat:
            return "a float";
        case yaml::ScalarType::kString:
            return "a string";
    }
    return "a string";
}

std::string Quote(const std::string& text) {
    return "\"" + text + "\"";
}

Error NotA(const yaml::Node& node, std::string_view what, std::string_view hint = {}) {
    std::string message = Quote(node.text) + " is not " + std::string(what);
    if (!hint.empty()) {
        message += " (";
        message += hint;
        message += ")";
    }
    return Error::InvalidArgument(std::move(message));
}

std::string Trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return std::string(text);
}

std::optional<ScalarKind> ScalarKindOf(Primitive p) {
    switch (p) {
        case Primitive::kSize:
            return ScalarKind::kSize;
        case Primitive::kTime:
            return ScalarKind::kTime;
        case Primitive::kFrequency:
            return ScalarKind::kFrequency;
        case Primitive::kBitrate:
            return ScalarKind::kBitrate;
        default:
            return std::nullopt;
    }
}

Result<TypedValue> ParseRange(const yaml::Node& node, LiteralTyping typing) {
    TypedValue out;
    out.kind = TypedValue::Kind::kRange;
    std::string lo_text;
    std::string hi_text;
    if (node.IsSequence() && node.items.size() == 2 && node.items[0]->IsScalar() && node.items[1]->IsScalar()) {
        lo_text = node.items[0]->text;
        hi_text = node.items[1]->text;
    } else if (typing == LiteralTyping::kTextual && node.IsScalar() && node.text.find(',') != std::string::npos) {
        // The original also reads "a,b".
        lo_text = Trimmed(node.text.substr(0, node.text.find(',')));
        hi_text = Trimmed(node.text.substr(node.text.find(',') + 1));
    } else {
        return Error::InvalidArgument(yaml::Describe(node) + " is not a range (expected [min, max])");
    }
    const auto lo = yaml::ParseYamlInt(lo_text);
    const bool unbounded = hi_text == "UNBOUNDED";
    const auto hi = unbounded ? std::optional<std::int64_t>(0) : yaml::ParseYamlInt(hi_text);
    if (!lo || !hi) {
        return Error::InvalidArgument(
            yaml::Describe(node) + " is not a range: bounds must be integers (max may be UNBOUNDED)"
        );
    }
    if (!unbounded && *hi < *lo) {
        return Error::InvalidArgument(yaml::Describe(node) + " is not a range: max is lower than min");
    }
    out.range = Range{*lo, *hi, unbounded};
    return out;
}

}  // namespace

std::optional<Primitive> PrimitiveFromName(std::string_view name) {
    for (const auto& [text, p] : kPrimitives) {
        if (text == name) {
            return p;
        }
    }
    return std::nullopt;
}

std::string_view PrimitiveName(Primitive p) {
    for (const auto& [text, candidate] : kPrimitives) {
        if (candidate == p) {
            return text;
        }
    }
    return "string";
}

Json TypedValue::ToJson() const {
    switch (kind) {
        case Kind::kBool:
            return boolean;
        case Kind::kInt:
            return integer;
        case Kind::kFloat:
            return number;
        case Kind::kRange:
            return Json::array({range.min, range.unbounded ? Json("UNBOUNDED") : Json(range.max)});
        default:
            return text;
    }
}

Result<TypedValue> ParsePrimitive(const yaml::Node& node, Primitive type, LiteralTyping typing) {
    if (type == Primitive::kRange) {
        return ParseRange(node, typing);
    }
    if (!node.IsScalar()) {
        return Error::InvalidArgument(
            yaml::Describe(node) + " is not " + (type == Primitive::kInteger ? "an " : "a ") +
            std::string(PrimitiveName(type))
        );
    }
    const bool yaml_typed = typing == LiteralTyping::kYamlTyped;
    const yaml::ScalarType yaml_type = yaml::ResolveScalar(node);
    TypedValue out;
    out.text = node.text;
    switch (type) {
        case Primitive::kString:
            if (yaml_typed && yaml_type != yaml::ScalarType::kString) {
                return NotA(
                    node, "a string", "YAML reads it as " + std::string(YamlTypeWord(yaml_type)) + "; quote it"
                );
            }
            out.kind = TypedValue::Kind::kString;
            return out;
        case Primitive::kInteger: {
            if (yaml_typed && yaml_type != yaml::ScalarType::kInt) {
                return NotA(node, "an integer");
            }
            const auto value = yaml::ParseYamlInt(yaml_typed ? node.text : Trimmed(node.text));
            if (!value) {
                return NotA(node, "an integer");
            }
            out.kind = TypedValue::Kind::kInt;
            out.integer = *value;
            return out;
        }
        case Primitive::kFloat: {
            if (yaml_typed && yaml_type != yaml::ScalarType::kFloat) {
                return NotA(
                    node,
                    "a float",
                    yaml_type == yaml::ScalarType::kInt ? "write it with a decimal point, e.g. 1.0" : ""
                );
            }
            const auto value = yaml::ParseYamlFloat(yaml_typed ? node.text : Trimmed(node.text));
            if (!value || std::isnan(*value)) {
                return NotA(node, "a float");
            }
            out.kind = TypedValue::Kind::kFloat;
            out.number = *value;
            return out;
        }
        case Primitive::kBoolean: {
            std::optional<bool> value;
            if (yaml_typed) {
                value = yaml_type == yaml::ScalarType::kBool ? yaml::ParseYamlBool(node.text) : std::nullopt;
            } else {
                std::string lower = Trimmed(node.text);
                std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
                    return static_cast<char>(std::tolower(c));
                });
                value = yaml::ParseYamlBool(lower);
            }
            if (!value) {
                return NotA(node, "a boolean", "use true or false");
            }
            out.kind = TypedValue::Kind::kBool;
            out.boolean = *value;
            return out;
        }
        case Primitive::kTimestamp: {
            const auto value = ParseTimestamp(Trimmed(node.text));
            if (!value) {
                return NotA(node, "a timestamp", "YAML 1.2 form, e.g. 2024-05-01T12:00:00Z");
            }
            out.kind = TypedValue::Kind::kTimestamp;
            out.timestamp = *value;
            return out;
        }
        case Primitive::kVersion: {
            const auto value = ParseVersion(Trimmed(node.text));
            if (!value) {
                return NotA(node, "a version", "major.minor[.fix[.qualifier[-build]]]");
            }
            out.kind = TypedValue::Kind::kVersion;
            out.version = *value;
            return out;
        }
        default:
            break;
    }
    const auto kind = ScalarKindOf(type);
    if (!kind) {
        return Error::InvalidArgument(yaml::Describe(node) + " cannot be read as " + std::string(PrimitiveName(type)));
    }
    auto scalar = ParseScalarUnit(node.text, *kind);
    if (!scalar) {
        return std::move(scalar).error();
    }
    out.kind = TypedValue::Kind::kScalar;
    out.text = Trimmed(node.text);
    out.scalar = std::move(*scalar);
    return out;
}

std::optional<int> CompareTyped(const TypedValue& a, const TypedValue& b) {
    using K = TypedValue::Kind;
    const auto cmp = [](auto x, auto y) {
        return x < y ? -1 : (y < x ? 1 : 0);
    };
    const bool a_num = a.kind == K::kInt || a.kind == K::kFloat;
    const bool b_num = b.kind == K::kInt || b.kind == K::kFloat;
    if (a_num && b_num) {
        if (a.kind == K::kInt && b.kind == K::kInt) {
            return cmp(a.integer, b.integer);
        }
        const double x = a.kind == K::kInt ? static_cast<double>(a.integer) : a.number;
        const double y = b.kind == K::kInt ? static_cast<double>(b.integer) : b.number;
        return cmp(x, y);
    }
    if (a.kind != b.kind) {
        return std::nullopt;
    }
    switch (a.kind) {
        case K::kString:
            return cmp(a.text, b.text);
        case K::kScalar:
            if (a.scalar.kind != b.scalar.kind) {
                return std::nullopt;
            }
            return cmp(a.scalar.base, b.scalar.base);
        case K::kVersion:
            return CompareVersions(a.version, b.version);
        case K::kTimestamp:
            return a.timestamp.seconds != b.timestamp.seconds ? cmp(a.timestamp.seconds, b.timestamp.seconds)
                                                              : cmp(a.timestamp.nanos, b.timestamp.nanos);
        default:
            return std::nullopt;
    }
}

bool EqualTyped(const TypedValue& a, const TypedValue& b) {
    using K = TypedValue::Kind;
    if (a.kind == K::kBool && b.kind == K::kBool) {
        return a.boolean == b.boolean;
    }
    if (a.kind == K::kRange && b.kind == K::kRange) {
        return a.range.min == b.range.min && a.range.unbounded == b.range.unbounded &&
               (a.range.unbounded || a.range.max == b.range.max);
    }
    const auto c = CompareTyped(a, b);
    return c.has_value() && *c == 0;
}

}  // namespace orch::tosca
