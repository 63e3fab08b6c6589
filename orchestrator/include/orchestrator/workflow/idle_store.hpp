#pragma once

#include "common/result.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/workflow/idle_policy.hpp"

#include <optional>
#include <string>
#include <vector>

namespace orch::workflow {

/// A running deployment holding GPUs (CREATE_COMPLETE or UPDATE_COMPLETE, req_gpus > 0), with
/// its idle watch if it has one.
struct IdleCandidate {
    std::string deployment_id;
    std::string issuer;  ///< owner issuer ("" when unowned)
    std::string group;
    std::string physical_id;  ///< the Kubernetes namespace for Kubernetes deployments
    int gpus = 0;
    std::optional<IdleWatch> watch;
};

/// One decided step, applied atomically by IdleStore::Apply.
struct IdleChange {
    std::string deployment_id;
    IdleStep step = IdleStep::kNone;
    domain::TimePoint now{};
    /// kReset: the state it is reset from (only a notified owner gets the cancellation event).
    std::optional<IdleState> from;
    /// kReclaim: what to do and what to record for the group.
    IdleAction action = IdleAction::kStop;
    double gpu_hours = 0;
    /// Appended to the event log in the same transaction (kNotify, kReclaim, a notified kReset);
    /// the deployment's callback is queued with them.
    std::vector<domain::Event> events;
};

/// Reclaimed GPU-hours of one group, as recorded.
struct ReclaimedHours {
    std::string issuer;
    std::string group;
    double gpu_hours = 0;
    std::int64_t reclamations = 0;
};

/// Persistence of idle reclamation (migration 0012_idle.sql). Every change is one transaction that
/// re-checks the watch's state and the deployment's status under the deployment row lock, so any
/// number of replicas may sweep at once: each step is applied once.
class IdleStore {
   public:
    virtual ~IdleStore() = default;
    /// Up to `limit` candidates with deployment id > `after`, in id order (a sweep pages through).
    virtual Result<std::vector<IdleCandidate>> IdleCandidates(const std::string& after, int limit) = 0;
    /// Applies `change`; false when it no longer applies (another replica did it, the deployment
    /// left its running status, or a stop could not be queued because another operation runs:
    /// then nothing was written and the next sweep decides again).
    virtual Result<bool> ApplyIdle(const IdleChange& change) = 0;
    /// Reclaimed GPU-hours of `issuer`'s groups (all of them when `groups` is empty).
    virtual Result<std::vector<ReclaimedHours>> Reclaimed(
        const std::string& issuer, const std::vector<std::string>& groups
    ) = 0;
    /// Every group's reclaimed GPU-hours, for /metrics.
    virtual Result<std::vector<ReclaimedHours>> AllReclaimed() = 0;
};

}  // namespace orch::workflow
