#pragma once

#include "common/json.hpp"
#include "orchestrator/domain/deployment.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orch::domain {

/// What an event of a deployment's progress says happened. The names are the events table's
/// values and the SSE `event:` field.
enum class EventType {
    kProgress,          ///< progress  : statusReason moved (validated, waiting, polling ...)
    kPlacementDecided,  ///< placement : the ranked sites to try
    kAttemptStarted,    ///< attempt_started : deploying on a site (attempt k of n)
    kAttemptEnded,      ///< attempt_ended : that try succeeded or failed, with the reason
    kSiteMessage,       ///< site_message : the site's own latest message
    kCompleted,         ///< completed : the status reached a *_COMPLETE state
    kFailed,            ///< failed : the status reached a *_FAILED state, with the real cause
    kElasticScale,      ///< elastic : the autoscaler asked for a new worker count, with the signal
    kIdle,              ///< idle : idle GPU reclamation (data.phase: notice, cancelled, reclaimed)
    kLeaseWarning,      ///< lease_warning : the lease ends soon (expiresAt, secondsLeft)
    kLeaseExpired,      ///< lease_expired : the lease ended; its action (delete | stop) begins
    kUnknown,
};
std::string_view EventTypeName(EventType type);
EventType ParseEventType(std::string_view name);  ///< kUnknown for any other text

/// One entry of the durable event log. `id` is assigned by the store (0 before), increasing in
/// commit order, so a reader that resumes after an id misses nothing.
struct Event {
    std::int64_t id = 0;
    std::string deployment_id;
    EventType type = EventType::kProgress;
    TimePoint time{};
    Json data = Json::object();
};

}  // namespace orch::domain
