#include "orchestrator/domain/event.hpp"

#include <array>

namespace orch::domain {

std::string_view EventTypeName(EventType type) {
    switch (type) {
        case EventType::kProgress:
            return "progress";
        case EventType::kPlacementDecided:
            return "placement";
        case EventType::kAttemptStarted:
            return "attempt_started";
        case EventType::kAttemptEnded:
            return "attempt_ended";
        case EventType::kSiteMessage:
            return "site_message";
        case EventType::kCompleted:
            return "completed";
        case EventType::kFailed:
            return "failed";
        case EventType::kElasticScale:
            return "elastic";
        case EventType::kIdle:
            return "idle";
        case EventType::kLeaseWarning:
            return "lease_warning";
        case EventType::kLeaseExpired:
            return "lease_expired";
        case EventType::kUnknown:
            break;
    }
    return "unknown";
}

EventType ParseEventType(std::string_view name) {
    constexpr std::array kKnown = {
        EventType::kProgress,
        EventType::kPlacementDecided,
        EventType::kAttemptStarted,
        EventType::kAttemptEnded,
        EventType::kSiteMessage,
        EventType::kCompleted,
        EventType::kFailed,
        EventType::kElasticScale,
        EventType::kIdle,
        EventType::kLeaseWarning,
        EventType::kLeaseExpired,
    };
    for (const auto type : kKnown) {
        if (EventTypeName(type) == name) {
            return type;
        }
    }
    return EventType::kUnknown;
}

}  // namespace orch::domain
