#include "tosca/scalar_unit.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace orch::tosca {
namespace {

struct UnitDef {
    std::string_view name;
    double factor;
};

constexpr std::array<UnitDef, 9> kSizeUnits = {{
    {"B", 1.0},
    {"kB", 1e3},
    {"KiB", 1024.0},
    {"MB", 1e6},
    {"MiB", 1048576.0},
    {"GB", 1e9},
    {"GiB", 1073741824.0},
    {"TB", 1e12},
    {"TiB", 1099511627776.0},
}};

constexpr std::array<UnitDef, 7> kTimeUnits = {{
    {"d", 86400.0},
    {"h", 3600.0},
    {"m", 60.0},
    {"s", 1.0},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"ns", 1e-9},
}};

constexpr std::array<UnitDef, 4> kFrequencyUnits = {{
    {"Hz", 1.0},
    {"kHz", 1e3},
    {"MHz", 1e6},
    {"GHz", 1e9},
}};

// TOSCA 1.3 bitrate: bits (bps) and bytes (Bps) per second, decimal and binary multiples.
constexpr std::array<UnitDef, 18> kBitrateUnits = {{
    {"bps", 1.0},
    {"Kbps", 1e3},
    {"Kibps", 1024.0},
    {"Mbps", 1e6},
    {"Mibps", 1048576.0},
    {"Gbps", 1e9},
    {"Gibps", 1073741824.0},
    {"Tbps", 1e12},
    {"Tibps", 1099511627776.0},
    {"Bps", 8.0},
    {"KBps", 8e3},
    {"KiBps", 8.0 * 1024.0},
    {"MBps", 8e6},
    {"MiBps", 8.0 * 1048576.0},
    {"GBps", 8e9},
    {"GiBps", 8.0 * 1073741824.0},
    {"TBps", 8e12},
    {"TiBps", 8.0 * 1099511627776.0},
}};

struct UnitTable {
    const UnitDef* begin;
    const UnitDef* end;
};

UnitTable UnitsFor(ScalarKind kind) {
    switch (kind) {
        case ScalarKind::kSize:
            return {kSizeUnits.data(), kSizeUnits.data() + kSizeUnits.size()};
        case ScalarKind::kTime:
            return {kTimeUnits.data(), kTimeUnits.data() + kTimeUnits.size()};
        case ScalarKind::kFrequency:
            return {kFrequencyUnits.data(), kFrequencyUnits.data() + kFrequencyUnits.size()};
        case ScalarKind::kBitrate:
            return {kBitrateUnits.data(), kBitrateUnits.data() + kBitrateUnits.size()};
    }
    return {kSizeUnits.data(), kSizeUnits.data() + kSizeUnits.size()};
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) {
            return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        };
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

std::string UnitList(ScalarKind kind) {
    std::string out;
    const UnitTable table = UnitsFor(kind);
    for (const UnitDef* u = table.begin; u != table.end; ++u) {
        if (!out.empty()) {
            out += ", ";
        }
        out += u->name;
    }
    return out;
}

bool IsSpace(char c) {
    return c == ' ' || c == '\t';
}
bool IsDigit(char c) {
    return c >= '0' && c <= '9';
}

/// Length of a decimal number at the start of `text` (sign, digits, fraction, exponent); 0 if none.
std::size_t NumberLength(std::string_view text) {
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        ++i;
    }
    std::size_t digits = 0;
    while (i < text.size() && IsDigit(text[i])) {
        ++i;
        ++digits;
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && IsDigit(text[i])) {
            ++i;
            ++digits;
        }
    }
    if (digits == 0) {
        return 0;
    }
    // An exponent only when digits follow: "1e" is a number and an unknown unit "e".
    if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) {
            ++j;
        }
        if (j < text.size() && IsDigit(text[j])) {
            while (j < text.size() && IsDigit(text[j])) {
                ++j;
            }
            i = j;
        }
    }
    return i;
}

Result<const UnitDef*> FindUnit(std::string_view unit, ScalarKind kind, std::string_view text) {
    const UnitTable table = UnitsFor(kind);
    for (const UnitDef* u = table.begin; u != table.end; ++u) {
        if (u->name == unit) {
            return u;
        }
    }
    const UnitDef* match = nullptr;
    int matches = 0;
    for (const UnitDef* u = table.begin; u != table.end; ++u) {
        if (EqualsIgnoreCase(u->name, unit)) {
            match = u;
            ++matches;
        }
    }
    if (matches == 1) {
        return match;
    }
    const std::string type(ScalarKindTypeName(kind));
    if (matches > 1) {
        return Error::InvalidArgument(
            "\"" + std::string(text) + "\" is not a valid " + type + ": the unit \"" + std::string(unit) +
            "\" is ambiguous in this letter case; write one of " + UnitList(kind)
        );
    }
    return Error::InvalidArgument(
        "\"" + std::string(text) + "\" is not a valid " + type + ": unknown unit \"" + std::string(unit) +
        "\" (valid units: " + UnitList(kind) + ")"
    );
}

}  // namespace

std::optional<ScalarKind> ScalarKindFromTypeName(std::string_view type_name) {
    if (type_name == "scalar-unit.size") {
        return ScalarKind::kSize;
    }
    if (type_name == "scalar-unit.time") {
        return ScalarKind::kTime;
    }
    if (type_name == "scalar-unit.frequency") {
        return ScalarKind::kFrequency;
    }
    if (type_name == "scalar-unit.bitrate") {
        return ScalarKind::kBitrate;
    }
    return std::nullopt;
}

std::string_view ScalarKindTypeName(ScalarKind kind) {
    switch (kind) {
        case ScalarKind::kSize:
            return "scalar-unit.size";
        case ScalarKind::kTime:
            return "scalar-unit.time";
        case ScalarKind::kFrequency:
            return "scalar-unit.frequency";
        case ScalarKind::kBitrate:
            return "scalar-unit.bitrate";
    }
    return "scalar-unit.size";
}

Result<ScalarUnit> ParseScalarUnit(std::string_view text, ScalarKind kind, bool require_space) {
    std::string_view t = text;
    while (!t.empty() && IsSpace(t.front())) {
        t.remove_prefix(1);
    }
    while (!t.empty() && IsSpace(t.back())) {
        t.remove_suffix(1);
    }
    const std::string type(ScalarKindTypeName(kind));
    const std::size_t number_length = NumberLength(t);
    if (number_length == 0) {
        return Error::InvalidArgument(
            "\"" + std::string(text) + "\" is not a valid " + type + ": expected a number followed by a unit (e.g. " +
            (kind == ScalarKind::kSize        ? "\"4 GB\""
             : kind == ScalarKind::kTime      ? "\"30 s\""
             : kind == ScalarKind::kFrequency ? "\"2.5 GHz\""
                                              : "\"10 Mbps\"") +
            ")"
        );
    }
    std::string_view rest = t.substr(number_length);
    std::size_t spaces = 0;
    while (spaces < rest.size() && IsSpace(rest[spaces])) {
        ++spaces;
    }
    const std::string_view unit = rest.substr(spaces);
    if (unit.empty()) {
        return Error::InvalidArgument(
            "\"" + std::string(text) + "\" is not a valid " + type +
            ": the unit is missing (valid units: " + UnitList(kind) + ")"
        );
    }
    if (require_space && spaces == 0) {
        return Error::InvalidArgument(
            "\"" + std::string(text) + "\" is not a valid " + type + ": put a space between the number and the unit"
        );
    }
    auto found = FindUnit(unit, kind, text);
    if (!found) {
        return std::move(found).error();
    }
    const std::string number_text(t.substr(0, number_length));
    char* end = nullptr;
    const double number = std::strtod(number_text.c_str(), &end);
    if (!std::isfinite(number)) {
        return Error::InvalidArgument(
            "\"" + std::string(text) + "\" is not a valid " + type + ": the number is out of range"
        );
    }
    const UnitDef* def = *found;
    return ScalarUnit{kind, number, std::string(def->name), number * def->factor};
}

std::optional<std::uint64_t> SizeInUnits(const ScalarUnit& size, double unit_bytes) {
    if (size.base < 0 || unit_bytes <= 0) {
        return std::nullopt;
    }
    // Round half-ULP noise away before rounding up ("1 GB" is exactly 1000 MB).
    const double units = std::ceil(size.base / unit_bytes - 1e-9);
    if (!(units < 1.8e19)) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(units);
}

}  // namespace orch::tosca
