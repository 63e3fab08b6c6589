#pragma once

#include "orchestrator/domain/deployment.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace orch::domain {

/// How one try of a deployment on one site ended; the names are the attempts table's values.
enum class AttemptOutcome { kRunning, kSucceeded, kFailed, kUnknown };
std::string_view AttemptOutcomeName(AttemptOutcome outcome);  ///< RUNNING | SUCCEEDED | FAILED | UNKNOWN
AttemptOutcome ParseAttemptOutcome(std::string_view name);    ///< kUnknown for any other text

/// Whose fault a failed attempt was. Site health (ranking, circuit breakers) counts only the
/// site's: a template the target cannot run or a user error the site reports says nothing about
/// the site, and counting it would lower the site for everybody (issue 25: a mis-routed Kubernetes
/// template opened OpenStack's breaker). Decided from the connector's typed FailureKind, never
/// from message text. Names are the attempts table's `cause` values.
enum class FailureCause { kSite, kRequest };
std::string_view FailureCauseName(FailureCause cause);  ///< SITE | REQUEST
FailureCause ParseFailureCause(std::string_view name);  ///< kSite for any other text (the old rows)

/// One try of a deployment on one site, as GET /deployments/{id}/attempts shows it (in the order
/// they were made: seq 1 first).
struct Attempt {
    int seq = 0;
    std::string provider_id;
    std::string provider_name;
    std::string service_id;
    TimePoint started_at{};
    std::optional<TimePoint> finished_at;  ///< none while running
    AttemptOutcome outcome = AttemptOutcome::kRunning;
    std::string reason;  ///< why it failed (empty otherwise)
};

/// "2026-11-27T10:20:31.123Z": UTC with milliseconds (attempts of one deployment may be seconds apart).
std::string FormatUtcMillis(TimePoint t);

}  // namespace orch::domain
