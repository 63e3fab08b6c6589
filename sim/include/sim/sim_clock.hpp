#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace orch::sim {

/// Simulated wall time in seconds since the Unix epoch. It runs at `speed` simulated seconds per
/// real second (0 = stands still) and can be pushed forward by tests, so state progressions
/// (task start, job runs, cron schedules) need no real waiting.
class SimClock {
   public:
    explicit SimClock(double speed = 1.0);

    double Now() const;
    /// Moves simulated time forward; negative values are ignored (time never goes back).
    void Advance(double seconds);
    double speed() const { return speed_; }

   private:
    double speed_;
    std::chrono::steady_clock::time_point real_start_;
    double sim_start_;
    mutable std::mutex mutex_;
    double offset_ = 0;
};

/// "2024-05-01T12:00:00.000Z" for a time in seconds since the epoch.
std::string FormatIsoTime(double seconds);

}  // namespace orch::sim
