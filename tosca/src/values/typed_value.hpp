#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "tosca/scalar_unit.hpp"
#include "values/primitives.hpp"
#include "yaml/node.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orch::tosca {

/// The built-in TOSCA value types.
enum class Primitive {
    kString,
    kInteger,
    kFloat,
    kBoolean,
    kTimestamp,
    kVersion,
    kRange,
    kList,
    kMap,
    kSize,
    kTime,
    kFrequency,
    kBitrate,
};
std::optional<Primitive> PrimitiveFromName(std::string_view name);
std::string_view PrimitiveName(Primitive p);

/// A scalar value parsed as its TOSCA type, comparable with another of the same type.
struct TypedValue {
    enum class Kind { kBool, kInt, kFloat, kString, kScalar, kVersion, kTimestamp, kRange } kind = Kind::kString;
    bool boolean = false;
    std::int64_t integer = 0;
    double number = 0;
    std::string text;  ///< the source text (strings, timestamps, versions, scalars)
    ScalarUnit scalar;
    Version version;
    Timestamp timestamp;
    Range range;

    Json ToJson() const;
};

/// How literal YAML types are read. kYamlTyped (strict mode, like tosca-parser): the YAML type
/// of a plain scalar must match (1 is not a float, true is not a string). kTextual (compat, like
/// the original orchestrator): every scalar is text parsed per TOSCA type.
enum class LiteralTyping { kYamlTyped, kTextual };

/// Parses a scalar (or, for range, a two-item sequence) as `type`. Errors say what the value is
/// and what was expected. Not for list/map/complex types.
Result<TypedValue> ParsePrimitive(const yaml::Node& node, Primitive type, LiteralTyping typing);

/// -1/0/1, or nullopt when the two cannot be ordered (different kinds, booleans, ranges).
std::optional<int> CompareTyped(const TypedValue& a, const TypedValue& b);
bool EqualTyped(const TypedValue& a, const TypedValue& b);

}  // namespace orch::tosca
