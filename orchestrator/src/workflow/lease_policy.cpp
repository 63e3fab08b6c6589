#include "orchestrator/workflow/lease_policy.hpp"

#include "orchestrator/domain/iso_time.hpp"

#include <algorithm>

namespace orch::workflow {
namespace {

std::string DurationText(std::chrono::milliseconds d) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(d).count();
    if (seconds % 3600 == 0) {
        return std::to_string(seconds / 3600) + "h";
    }
    if (seconds % 60 == 0) {
        return std::to_string(seconds / 60) + "m";
    }
    return std::to_string(seconds) + "s";
}

}  // namespace

Result<std::optional<domain::TimePoint>> ResolveExpiry(
    const std::optional<domain::TimePoint>& requested,
    const LeasePolicy& policy,
    domain::TimePoint now,
    bool use_default
) {
    if (!requested) {
        if (use_default && policy.default_duration) {
            const auto fallback = now + *policy.default_duration;
            // A default longer than the maximum (an SLA and the operator disagreeing) is capped.
            return std::optional<domain::TimePoint>(
                policy.maximum ? std::min(fallback, now + *policy.maximum) : fallback
            );
        }
        return std::optional<domain::TimePoint>();
    }
    if (*requested <= now) {
        return Error::InvalidArgument("expiresAt must be in the future");
    }
    if (policy.maximum && *requested > now + *policy.maximum) {
        return Error::InvalidArgument(
            "expiresAt is beyond the maximum lease of " + DurationText(*policy.maximum) +
            " (latest allowed: " + domain::FormatIsoTime(now + *policy.maximum) + ")"
        );
    }
    return requested;
}

}  // namespace orch::workflow
