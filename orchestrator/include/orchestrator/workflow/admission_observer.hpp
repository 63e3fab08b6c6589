#pragma once

// What admission reports for the queue metrics (docs/admission.md, "Queue metrics"), without
// knowing who listens: ops implements it and main wires it in (StepOptions::admission_observer).
#include <cstddef>
#include <string>
#include <vector>

namespace orch::workflow {

/// One group of an issuer's admission queue, as a place step just computed it.
struct GroupQueueFigures {
    std::string group;
    std::size_t waiting = 0;  ///< requests of the group waiting (listed: at most kMaxWaitingListed in all)
    double share = 0;         ///< its dominant share over held + decayed usage, divided by its weight
};

class AdmissionObserver {
   public:
    virtual ~AdmissionObserver() = default;
    /// The issuer's queue per group, every time a place step orders it (groups absent now have
    /// no waiting request any more).
    virtual void QueueComputed(const std::string& issuer, const std::vector<GroupQueueFigures>& groups) = 0;
    /// A place step admitted a request `wait_seconds` after its creation (a commit that then finds
    /// the quota taken queues it again, and it is reported again when admitted).
    virtual void Admitted(const std::string& issuer, const std::string& group, double wait_seconds) = 0;
};

}  // namespace orch::workflow
