#pragma once

#include "common/result.hpp"
#include "orchestrator/auth/owner_filter.hpp"

#include <string>
#include <vector>

namespace orch::schedule {

/// A file that became available (Rucio's "scope:name" DID).
struct FileNotification {
    std::string scope;
    std::string name;
};

/// What one notification did, per matching schedule.
struct NotificationOutcome {
    struct Created {
        std::string schedule_id;
        std::string event_id;
        std::string deployment_id;
    };
    struct Failed {
        std::string schedule_id;
        std::string message;
    };
    std::vector<Created> created;
    std::vector<std::string> already_notified;  ///< schedules that had an event for this file
    std::vector<Failed> failed;                 ///< e.g. the stored template no longer validates
};

/// Receives file notifications (the schedule event service).
class FileNotificationSink {
   public:
    virtual ~FileNotificationSink() = default;
    /// Blocking (database, template validation): call it from a worker thread. Only schedules that
    /// `scope` allows fire: an issuer's admin notifies that issuer's schedules (and unowned ones).
    virtual Result<NotificationOutcome> OnFileAvailable(
        const FileNotification& file, const auth::OwnerFilter& scope
    ) = 0;
};

/// Where notifications come from. The original listened to Rucio's STOMP messages; here only main
/// chooses the concrete source (today: the admin HTTP endpoint POST /schedules/notifications).
class FileNotificationSource {
   public:
    virtual ~FileNotificationSource() = default;
    /// From now on, deliver notifications to `sink` (which must outlive the source or Stop()).
    virtual void Start(FileNotificationSink& sink) = 0;
    virtual void Stop() = 0;
};

}  // namespace orch::schedule
