#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orch::tosca {

/// TOSCA version: major.minor[.fix[.qualifier[-build]]]; missing numeric parts count as 0.
struct Version {
    std::array<std::int64_t, 3> numbers{};
    std::string qualifier;
    std::int64_t build = 0;
};
std::optional<Version> ParseVersion(std::string_view text);
int CompareVersions(const Version& a, const Version& b);

/// A YAML 1.2 timestamp ("2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
/// "2002-12-14") as UTC seconds and nanoseconds since the epoch.
struct Timestamp {
    std::int64_t seconds = 0;
    std::int64_t nanos = 0;
};
std::optional<Timestamp> ParseTimestamp(std::string_view text);

/// TOSCA range [min, max]; max may be UNBOUNDED.
struct Range {
    std::int64_t min = 0;
    std::int64_t max = 0;
    bool unbounded = false;
};

}  // namespace orch::tosca
