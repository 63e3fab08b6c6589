#pragma once

// The one source of time for logic that decides by it (deadlines, cache expiry, backoff,
// timestamps written to records). Components receive a `const Clock&`; only main wires the
// SystemClock, so tests move time with a ManualClock instead of sleeping.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace orch {

class Clock {
   public:
    using WallTime = std::chrono::system_clock::time_point;
    using SteadyTime = std::chrono::steady_clock::time_point;

    virtual ~Clock() = default;
    /// Wall time: what is stored and shown (created_at, deadlines kept in records).
    virtual WallTime now() const = 0;
    /// Monotonic time: intervals measured within this process (cache ages, timeouts).
    virtual SteadyTime steady_now() const = 0;
};

/// The real clocks.
class SystemClock final : public Clock {
   public:
    WallTime now() const override { return std::chrono::system_clock::now(); }
    SteadyTime steady_now() const override { return std::chrono::steady_clock::now(); }
};

/// A clock that moves only when told: both readings advance together. Thread-safe, so a test
/// may advance it while a component under test reads it.
class ManualClock final : public Clock {
   public:
    /// Starts at `start` (wall) and at an arbitrary steady epoch.
    explicit ManualClock(WallTime start = WallTime(std::chrono::hours(24 * 365 * 56)))
        : offset_(0), wall_start_(start) {}

    WallTime now() const override { return wall_start_ + Offset(); }
    SteadyTime steady_now() const override { return SteadyTime(std::chrono::hours(1)) + Offset(); }

    void Advance(std::chrono::nanoseconds by) { offset_.fetch_add(by.count()); }

   private:
    std::chrono::nanoseconds Offset() const { return std::chrono::nanoseconds(offset_.load()); }

    std::atomic<std::int64_t> offset_;
    WallTime wall_start_;
};

}  // namespace orch
