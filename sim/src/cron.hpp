#pragma once

#include "common/result.hpp"

#include <array>
#include <bitset>
#include <string>

namespace orch::sim {

/// A standard five-field cron expression (minute hour day-of-month month day-of-week) as the
/// CronJob controller reads it, including "*/n", ranges, lists and the @hourly-style macros.
class CronSchedule {
   public:
    static Result<CronSchedule> Parse(const std::string& text);
    /// Whether the minute starting at `unix_seconds` (UTC) is a scheduled time.
    bool Matches(double unix_seconds) const;

   private:
    std::bitset<60> minutes_;
    std::bitset<24> hours_;
    std::bitset<32> days_;
    std::bitset<13> months_;
    std::bitset<8> weekdays_;
    bool any_day_ = true;
    bool any_weekday_ = true;
};

}  // namespace orch::sim
