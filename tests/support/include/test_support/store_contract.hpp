#pragma once

// The contract of DeploymentStore and WorkflowStore, written once and run against every
// implementation: tests/unit/orchestrator/in_memory_store_contract_test.cpp (the in-memory
// fakes) and tests/integration/orchestrator/pg_store_contract_test.cpp (PostgreSQL). A fake that
// drifts from the real store fails here, not in a handler test that trusted it.
#include <orchestrator/auth/iam_client_store.hpp>
#include <orchestrator/store/deployment_store.hpp>
#include <orchestrator/store/event_store.hpp>
#include <orchestrator/workflow/elastic_store.hpp>
#include <orchestrator/workflow/idle_store.hpp>
#include <orchestrator/workflow/lease_store.hpp>
#include <orchestrator/workflow/workflow_store.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace orch::test::contract {

/// One fresh, empty pair of stores over one database.
class StoreFixture {
   public:
    virtual ~StoreFixture() = default;
    virtual store::DeploymentStore& deployments() = 0;
    virtual workflow::WorkflowStore& workflow() = 0;
    virtual store::EventStore& events() = 0;
    virtual workflow::ElasticStore& elastic() = 0;
    /// Idle reclamation's store over the same database (migration 0012).
    virtual workflow::IdleStore& idle() = 0;
    virtual workflow::LeaseStore& leases() = 0;
    virtual auth::IamClientStore& iam_clients() = 0;
    /// The stores' notion of now (creation times of the rows the suite writes).
    virtual domain::TimePoint Now() = 0;
    /// Lets `d` pass for the stores: sleeps for the database, moves a ManualClock for a fake.
    virtual void Elapse(std::chrono::milliseconds d) = 0;

    /// The suite's time origin for this fixture, fixed at first use (whole seconds, in the past).
    std::optional<domain::TimePoint> base_time;
};

using Factory = std::function<std::unique_ptr<StoreFixture>()>;

// Each runs its checks on fixtures from `make`; Catch sections are not used, so a test case
// that calls one reports its failures under its own name.
void CreateGetAndResources(const Factory& make);
/// Instances a site reports beyond a node's rows (by node and index) become resources of it.
void ReportedInstancesAdded(const Factory& make);
void OwnerScoping(const Factory& make);
void PaginationAndSort(const Factory& make);
void StatusTransitions(const Factory& make);
void ConcurrentRequestsOneWins(const Factory& make);
void LeaseFencing(const Factory& make);
void JobTiming(const Factory& make);
/// PollNow makes a waiting poll job due now, and only that one.
void PollNowMovesWaitingPoll(const Factory& make);
/// A queued reservation writes the wait's event and log line with its reason.
void QueuedWaitWritesItsEvent(const Factory& make);
void AttemptsRecorded(const Factory& make);
/// A step's log text is appended to the deployment's log, whose end only is kept.
void LogAppended(const Factory& make);
void PurgeDeleted(const Factory& make);
/// Events commit with their step (not when the lease was lost), come back in id order after a
/// cursor, scoped like the list, and are purged after their retention.
void EventLog(const Factory& make);
/// Range (the event window's read) gives every event in (after, up_to] with its owner, and
/// OwnerFilter::Admits on those owners keeps exactly what After's SQL scoping returns.
void EventWindowScope(const Factory& make);
/// A place step's quota reservation commits with it or, over a limit, only queues the job; it
/// becomes usage at CREATE_COMPLETE and is released at CREATE_FAILED and DELETE_COMPLETE.
void AdmissionAccounting(const Factory& make);
/// A deployment that ends adds what it held on its group counters × how long to the group's
/// fair-share history (resource-hours), per issuer.
void FairShareHistory(const Factory& make);
/// The GPU-hours of a class of the group's quota are kept apart (FairShareClassUsage) as well as in
/// the all-GPU figure, per issuer.
void FairShareClassHistory(const Factory& make);
/// Eight commits racing for three GPUs admit exactly three.
void AdmissionRace(const Factory& make);
/// A GPU class is a counter of its own: a full class queues its requests, another class and
/// the all-GPU counter are unaffected, a delete gives the class back.
void AdmissionGpuClasses(const Factory& make);
/// An update's growth is reserved with it (refused, nothing written, when it does not fit), becomes
/// usage when it completes, is given back when it fails or the deployment is deleted; a shrink
/// gives back when the update completes.
void AdmissionUpdate(const Factory& make);
/// A move to another candidate replaces only the claims on services, atomically: over the next
/// service's limit nothing is written and the old one stays held; an empty move gives it back.
void AdmissionMove(const Factory& make);
/// A committed change queues one callback delivery (when the deployment has a URL), claimed by
/// one claimer at a time under a lease, retried after a delay, taken over when the lease expires.
void CallbackOutbox(const Factory& make);
/// The deployments waiting for admission are listed per issuer, oldest first, with what they
/// wait for, whether the step waited or its reservation did not fit; not once admitted or deleted.
void AdmissionQueue(const Factory& make);
/// A request is listed once while its deploy job carries a waiting record, whatever happens to the
/// job meanwhile (a retry, waiting again, a reservation that does not fit), and not once the job is
/// gone (admitted, failed).
void AdmissionQueueFollowsItsJob(const Factory& make);
/// The elastic autoscaler's turns (one per gap, of two sweeps at once exactly one), its memory
/// kept to the microsecond, its event in the log, and the deployments it may scale.
void ElasticState(const Factory& make);
/// An update's events (an elastic scale's decision) and its callback delivery commit with it; an
/// update refused (not in a state that allows it) writes neither.
void UpdateEvents(const Factory& make);
/// `selfHealing` is stored as said (or not said), kept by an update that does not say it; a
/// commit may set a new deadline (a self-healing redeploy).
void SelfHealing(const Factory& make);
/// Idle reclamation (contract/idle_contract.cpp): only running GPU deployments are candidates; each
/// step applies once (a repeat or a stale step writes nothing); notifying writes an event and a
/// callback; reclaiming needs the notification, queues the stop or delete with it and adds the
/// group's GPU-hours, scoped to the issuer.
void IdleReclamation(const Factory& make);
/// Leases (migration 0011): a lease set at create or renewed is listed as due by its end, warned
/// about once per lead time, and expired once (delete; or stop, node by node, between
/// operations); a write decided on an expiry that was renewed since does nothing.
void Leases(const Factory& make);
/// Per-deployment OAuth client records: reserved before registration (one per id), completed,
/// marked unconfirmed, forgotten; listed per deployment and by age, oldest first, to the µs;
/// independent of the deployment row (a purged deployment does not take them along).
void IamClientRecords(const Factory& make);

}  // namespace orch::test::contract
