#pragma once

#include "common/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orch::tosca {

/// The four TOSCA scalar-unit types.
enum class ScalarKind { kSize, kTime, kFrequency, kBitrate };

/// "scalar-unit.size" → kSize, ...; nullopt for any other type name.
std::optional<ScalarKind> ScalarKindFromTypeName(std::string_view type_name);
std::string_view ScalarKindTypeName(ScalarKind kind);

/// A parsed scalar-unit value. `base` is the quantity in the base unit of its kind:
/// bytes (size), seconds (time), hertz (frequency), bits per second (bitrate).
struct ScalarUnit {
    ScalarKind kind = ScalarKind::kSize;
    double number = 0;  ///< the number as written
    std::string unit;   ///< the canonical spelling of the unit ("GiB", "kHz", "ms", "Mbps")
    double base = 0;    ///< number × unit factor
};

/// Parses `<number> <unit>`. The number is a decimal (optionally signed, with fraction and
/// exponent); any amount of whitespace, including none, may separate it from the unit; units
/// match case-insensitively ("GIB", "Mb" are accepted), except where that would be ambiguous
/// (bitrate "KBPS": kilobits or kilobytes), which must then be written exactly.
/// When `require_space` is set (the original orchestrator's grammar) a missing space is an error.
/// Errors (kInvalidArgument) say what is wrong and list the valid units.
Result<ScalarUnit> ParseScalarUnit(std::string_view text, ScalarKind kind, bool require_space = false);

/// Converts a size to whole units of `unit_bytes` (e.g. 1'000'000 for MB), rounding up, so that a
/// request is never understated; nullopt when negative or too large.
std::optional<std::uint64_t> SizeInUnits(const ScalarUnit& size, double unit_bytes);

}  // namespace orch::tosca
