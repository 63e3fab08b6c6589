#pragma once

#include "common/result.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/domain/event.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::workflow {

using domain::LeaseAction;

/// Where a lease stands (deployments.lease_state).
enum class LeaseState {
    kActive,    ///< running out; warnings may be owed
    kStopping,  ///< expired with action stop: its nodes are being stopped one at a time
    kExpired,   ///< the expiry action was done (or begun, for a delete)
};
std::string_view LeaseStateName(LeaseState state);  ///< "ACTIVE" | "STOPPING" | "EXPIRED"
LeaseState ParseLeaseState(std::string_view name);  ///< kActive for unknown text

/// A lease the sweep has to look at: it ends within the warning horizon.
struct DueLease {
    std::string deployment_id;
    domain::TimePoint expires_at{};
    int warnings_sent = 0;  ///< how many of the configured lead times were warned about
    LeaseState state = LeaseState::kActive;
    LeaseAction action = LeaseAction::kDelete;  ///< as resolved when the lease was set
    domain::Status status = domain::Status::kCreateComplete;
    std::optional<tosca::DeploymentKind> kind;
    /// The first attempt at this lease's stop (busy or not); none before it. The stop's retry
    /// cap counts from it, so an orchestrator down past the cap still tries before giving up.
    std::optional<domain::TimePoint> stop_began;
};

/// What Expire did.
enum class ExpireOutcome {
    kDeleting,  ///< the delete was queued (or the deployment was already being deleted)
    kStopping,  ///< one more node is being stopped; the sweep comes back for the next
    kExpired,   ///< nothing (left) to stop: the lease is over
    kBusy,      ///< another operation runs on the deployment: try again at the next sweep
    kStale,     ///< the lease was renewed or expired by another replica meanwhile: nothing done
};

/// The durable side of leases. Every write re-reads the row under its lock and is guarded by the
/// `expires_at` the sweep read, so a renewal racing the sweep wins and two replicas sweeping
/// at once never warn or expire twice.
class LeaseStore {
   public:
    virtual ~LeaseStore() = default;
    /// Leases not yet EXPIRED ending at or before `until`, of deployments not being deleted,
    /// soonest first, at most `limit`. A plain read: the writes below do the locking.
    virtual Result<std::vector<DueLease>> DueLeases(domain::TimePoint until, int limit) = 0;
    /// Records warning number `warning` (1-based) of the lease ending at `expires_at`: `event` in
    /// the event log and a callback delivery (when the deployment has a callback URL), in one
    /// transaction. False (nothing written) when the lease changed or that warning was sent.
    virtual Result<bool> RecordWarning(
        const std::string& id, domain::TimePoint expires_at, int warning, const domain::Event& event
    ) = 0;
    /// Carries out the expiry of the lease ending at `expires_at`. Delete: as DELETE does.
    /// Stop: stops the first STARTED resource whose type chain holds one of `stoppable_types`
    /// through the action step (one workflow job at a time); none left: the lease is EXPIRED.
    /// `event` (and a callback delivery) is written when the expiry begins, once. A stop
    /// attempt, even a busy one, records `event.time` as the stop's first attempt (DueLease::
    /// stop_began) unless this lease has one already.
    virtual Result<ExpireOutcome> Expire(
        const std::string& id,
        domain::TimePoint expires_at,
        LeaseAction action,
        const std::vector<std::string>& stoppable_types,
        const domain::Event& event
    ) = 0;
    /// Gives up the stop of the lease ending at `expires_at` (it did not finish in time: the
    /// sweep's retry cap): the lease is EXPIRED whatever its nodes are, the deployment keeps its
    /// status with `reason` as status reason, and `event` (and a callback delivery) tells the owner,
    /// in one transaction. Jobs already queued are left to end on their own (bounded by the
    /// action timeout). False (nothing written) when the lease was renewed or is over meanwhile.
    virtual Result<bool> AbandonStop(
        const std::string& id, domain::TimePoint expires_at, const std::string& reason, const domain::Event& event
    ) = 0;
};

}  // namespace orch::workflow
