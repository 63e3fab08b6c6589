#pragma once

#include "common/result.hpp"

#include <optional>
#include <string>

namespace orch::sim {

/// An ISO 8601 repeating interval as Chronos reads it: "R[n]/[start]/<period>".
struct IsoSchedule {
    long repetitions = -1;        ///< -1: repeat forever ("R")
    std::optional<double> start;  ///< seconds since the epoch; absent = now
    double period = 0;            ///< seconds
};

/// "2015-12-25T17:22:00Z", with optional fraction and "+hh:mm" offset -> seconds since the epoch.
Result<double> ParseIsoDateTime(const std::string& text);
/// "PT10S", "P1DT2H", "P2W" -> seconds (years and months count as 365 and 30 days).
Result<double> ParseIsoDuration(const std::string& text);
Result<IsoSchedule> ParseIsoSchedule(const std::string& text);

}  // namespace orch::sim
