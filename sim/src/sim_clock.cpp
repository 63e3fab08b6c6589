#include "sim/sim_clock.hpp"

#include <cmath>
#include <ctime>

namespace orch::sim {

SimClock::SimClock(double speed)
    : speed_(speed < 0 ? 0 : speed),
      real_start_(std::chrono::steady_clock::now()),
      sim_start_(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count()) {}

double SimClock::Now() const {
    const double real = std::chrono::duration<double>(std::chrono::steady_clock::now() - real_start_).count();
    const std::lock_guard lock(mutex_);
    return sim_start_ + real * speed_ + offset_;
}

void SimClock::Advance(double seconds) {
    if (!(seconds > 0)) {
        return;
    }
    const std::lock_guard lock(mutex_);
    offset_ += seconds;
}

std::string FormatIsoTime(double seconds) {
    const auto whole = static_cast<std::time_t>(std::floor(seconds));
    const int millis = static_cast<int>((seconds - std::floor(seconds)) * 1000.0);
    std::tm tm{};
    gmtime_r(&whole, &tm);
    char buf[40];
    const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%.*s.%03dZ", static_cast<int>(n), buf, millis);
    return out;
}

}  // namespace orch::sim
