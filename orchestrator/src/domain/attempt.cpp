#include "orchestrator/domain/attempt.hpp"

#include <cstdio>
#include <ctime>

namespace orch::domain {

std::string_view AttemptOutcomeName(AttemptOutcome outcome) {
    switch (outcome) {
        case AttemptOutcome::kRunning:
            return "RUNNING";
        case AttemptOutcome::kSucceeded:
            return "SUCCEEDED";
        case AttemptOutcome::kFailed:
            return "FAILED";
        case AttemptOutcome::kUnknown:
            break;
    }
    return "UNKNOWN";
}

AttemptOutcome ParseAttemptOutcome(std::string_view name) {
    for (const auto outcome : {AttemptOutcome::kRunning, AttemptOutcome::kSucceeded, AttemptOutcome::kFailed}) {
        if (AttemptOutcomeName(outcome) == name) {
            return outcome;
        }
    }
    return AttemptOutcome::kUnknown;
}

std::string_view FailureCauseName(FailureCause cause) {
    return cause == FailureCause::kRequest ? "REQUEST" : "SITE";
}

FailureCause ParseFailureCause(std::string_view name) {
    return name == "REQUEST" ? FailureCause::kRequest : FailureCause::kSite;
}

std::string FormatUtcMillis(TimePoint t) {
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[40];
    const int n = std::snprintf(
        buffer,
        sizeof buffer,
        "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
        utc.tm_year + 1900,
        utc.tm_mon + 1,
        utc.tm_mday,
        utc.tm_hour,
        utc.tm_min,
        utc.tm_sec,
        static_cast<int>(millis % 1000)
    );
    return std::string(buffer, static_cast<std::size_t>(n > 0 ? n : 0));
}

}  // namespace orch::domain
