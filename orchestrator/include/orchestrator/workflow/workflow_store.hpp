#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/domain/attempt.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/workflow/admission.hpp"
#include "orchestrator/workflow/fair_share.hpp"
#include "orchestrator/workflow/job_kind.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::workflow {

/// A claimed unit of work. `kind` names the step; `payload` carries its own bookkeeping.
struct Job {
    std::int64_t id = 0;
    std::string deployment_id;
    JobKind kind = JobKind::kUnknown;
    bool workflow = true;  ///< the deployment's main line (one at a time) vs a side job
    Json payload = Json::object();
    int attempts = 0;
    std::string lease_owner;  ///< who claimed it: every write of the step is fenced on it
};

struct Attempt {
    int seq = 0;
    std::string provider_id, provider_name, service_id;
    Json target;  ///< candidate JSON (site target without credentials, placements)
    domain::TimePoint started_at{};
    domain::AttemptOutcome outcome = domain::AttemptOutcome::kRunning;
    domain::FailureCause cause = domain::FailureCause::kSite;  ///< meaningful when kFailed
    std::string reason;
    Json handle;  ///< null until Create returned
    bool cleaned = false;
};

/// Everything a step needs to decide: the deployment and the workflow's own columns.
struct WorkflowState {
    domain::Deployment deployment;
    /// The placement's candidates in the order to try them, null until placed. The decision
    /// itself (every site's verdict: megabytes for a large federation) is stored beside them
    /// but not loaded: only GET /deployments/{id}/placement reads it.
    Json candidates;
    int candidate_index = 0;
    Json handle;  ///< current attempt's connector handle
    std::optional<domain::TimePoint> deadline;
    std::vector<Attempt> attempts;
    std::vector<domain::Resource> resources;
};

struct ResourceChange {
    std::string id;  ///< resource id; or (node, index) when empty
    std::string node;
    int index = 0;
    std::optional<domain::NodeState> state;
    std::optional<std::string> physical_id;
    std::optional<Json> metadata;
};

struct NextJob {
    JobKind kind = JobKind::kDeploy;
    Json payload = Json::object();
    std::chrono::milliseconds delay{0};
    bool workflow = true;
};

/// One queued POST of a deployment's `callback` (the outbox row a state change wrote).
struct CallbackDelivery {
    std::int64_t id = 0;
    std::string deployment_id;
    std::string url;                 ///< the callback URL when the state changed
    int attempts = 0;                ///< deliveries tried, this one included
    domain::TimePoint created_at{};  ///< when the state changed (the delivery's age)
    std::string lease_owner;         ///< who claimed it: finishing it is fenced on it
};

/// What the place step stores: the decision as JSON text (written once, by JsonWriter: a tree
/// of ten thousand verdicts took four times as long to build and dump) and the candidates.
struct PlacementRecord {
    std::string decision_json;
    Json candidates = Json::array();
};

/// How much of a deployment's log the store keeps (its end): characters in PostgreSQL, bytes
/// (cut on a UTF-8 boundary) in the in-memory fake.
inline constexpr std::size_t kMaxLogChars = 512 * 1024;

/// The outcome of a step, written atomically with the job's completion. Unset members are left.
struct Transition {
    std::optional<domain::Status> status;
    std::optional<std::string> status_reason;  ///< "" clears it
    std::optional<domain::Task> task;
    std::optional<std::string> physical_id;  ///< "" clears it
    std::optional<std::string> provider_name;
    std::optional<Json> provider_endpoint;
    std::optional<Json> outputs;
    std::optional<PlacementRecord> placement;
    std::optional<int> candidate_index;
    std::optional<Json> handle;  ///< null clears it
    /// A new deadline: a self-healing redeploy gets its timeoutMins again, counted from now.
    std::optional<domain::TimePoint> deadline;
    /// Appended to the deployment's log (GET /deployments/{id}/log): one line per progress step
    /// and what the site's own log added since the last poll. Appended, never replaced, like the
    /// original's IM contextualisation log; the store keeps the last kMaxLogChars of it.
    std::string append_log;
    std::optional<domain::NodeState> resources_state;  ///< every resource not DELETED
    std::vector<ResourceChange> resource_changes;
    bool drop_deleting_resources = false;  ///< after an update: DELETING instances are gone
    /// attempts
    std::optional<Attempt> finish_attempt;  ///< seq, outcome, reason, handle (if set), cleaned
    std::optional<NextJob> next;            ///< the deployment's next step (replaces this job)
    std::vector<NextJob> side_jobs;         ///< cleanups
    /// Queue a delivery of the deployment's callback (none when it has no callback URL), in the
    /// same transaction: a committed state change is always notified, at least once.
    bool callback = false;
    /// Appended to the durable event log in the same transaction: an event is there exactly
    /// when its step committed (ids are the store's; `deployment_id` is the job's).
    std::vector<domain::Event> events;
    /// Quota reservation made in the same transaction (docs/admission.md). Independently of it,
    /// a commit that sets CREATE_COMPLETE turns the deployment's reservation into usage, and one
    /// that sets CREATE_FAILED or DELETE_COMPLETE releases what it holds.
    std::optional<Admission> admit;
};

/// Job queue and workflow persistence. Every write is fenced by the job lease: a worker that
/// lost its lease (crash recovery gave the job to another, or a delete cancelled it) cannot
/// commit anything, which is what makes "each step done once" hold across processes.
class WorkflowStore {
   public:
    virtual ~WorkflowStore() = default;
    /// Claims up to `max` due jobs (FOR UPDATE SKIP LOCKED), leasing them to `owner`.
    virtual Result<std::vector<Job>> Claim(const std::string& owner, int max, std::chrono::milliseconds lease) = 0;
    /// Extends the leases; returns the ids that are no longer ours (cancelled or taken over).
    virtual Result<std::vector<std::int64_t>> Heartbeat(
        const std::string& owner, const std::vector<std::int64_t>& ids, std::chrono::milliseconds lease
    ) = 0;
    virtual Result<std::optional<WorkflowState>> Load(const std::string& deployment_id) = 0;
    /// Records an attempt before the connector is called (write-ahead, so a delete finds it).
    /// kConflict when the lease was lost.
    virtual Status StartAttempt(const Job& job, const std::string& owner, const Attempt& attempt) = 0;
    /// Applies `t` and completes the job. kConflict when the lease was lost (nothing written).
    /// When `t.admit` does not fit, applies only its queued reason and delay (still Ok).
    virtual Status Commit(const Job& job, const std::string& owner, const Transition& t) = 0;
    /// Gives the job back for a later retry without other changes (transient failure).
    virtual Status Retry(
        const Job& job, const std::string& owner, std::chrono::milliseconds delay, const std::string& error
    ) = 0;
    /// Housekeeping: removes up to `limit` audit records of deleted deployments (DELETE_COMPLETE)
    /// whose delete completed more than `retention` ago and that no job refers to any more, with
    /// their resources and attempts. Returns how many went.
    virtual Result<std::int64_t> PurgeDeleted(std::chrono::milliseconds retention, int limit) {
        (void)retention;
        (void)limit;
        return std::int64_t{0};
    }
    /// Housekeeping: removes up to `limit` events older than `retention` (events.retention).
    virtual Result<std::int64_t> PurgeEvents(std::chrono::milliseconds retention, int limit) {
        (void)retention;
        (void)limit;
        return std::int64_t{0};
    }
    /// Quota counters of `issuer` (all of them, or those of `groups` when not empty): what
    /// admitted deployments hold, for GET /quotas and the tests.
    virtual Result<std::vector<QuotaCounter>> QuotaCounters(
        const std::string& issuer, const std::vector<std::string>& groups
    ) = 0;
    /// Each group's resource-hours of `issuer` held by deployments that ended (their group
    /// counters × how long), decayed by age with `half_life` (0: not decayed): the fair-share
    /// history (docs/admission.md; migration 0015).
    virtual Result<std::map<std::string, ShareVector, std::less<>>> FairShareUsage(
        const std::string& issuer, std::chrono::milliseconds half_life
    ) = 0;
    /// Each group's GPU-hours of `issuer` per GPU class of its own quota (the `group` class
    /// counters its ended deployments held), decayed as FairShareUsage's: what
    /// workflow.admission_gpu_weights weights (migration 0028). Included in FairShareUsage's GPUs.
    virtual Result<std::map<std::string, std::map<std::string, double>, std::less<>>> FairShareClassUsage(
        const std::string& issuer, std::chrono::milliseconds half_life
    ) = 0;
    /// Claims up to `max` due callback deliveries (FOR UPDATE SKIP LOCKED), leased to `owner`
    /// for `lease`; each claim counts as an attempt.
    virtual Result<std::vector<CallbackDelivery>> ClaimCallbacks(
        const std::string& owner, int max, std::chrono::milliseconds lease
    ) = 0;
    /// Removes a delivery that was made (or abandoned). kConflict when the lease was lost.
    virtual Status FinishCallback(const CallbackDelivery& delivery) = 0;
    /// Releases a delivery to be tried again after `delay`. kConflict when the lease was lost.
    virtual Status RetryCallback(
        const CallbackDelivery& delivery, std::chrono::milliseconds delay, const std::string& error
    ) = 0;
    /// The deployments of `issuer` (owner issuer; "" for unowned ones) still CREATE_IN_PROGRESS
    /// whose deploy job waits for admission (its payload's kWaitingMember, admission_queue.hpp),
    /// oldest first, at most `limit`: the queue the fair-share order is computed over.
    virtual Result<std::vector<WaitingRequest>> WaitingRequests(const std::string& issuer, int limit) = 0;
    /// The site said something changed for `deployment_id` (a Marathon event, a Kubernetes
    /// watch): its waiting poll job (poll or update_poll, not leased) becomes due now, so the
    /// poll step, the one code path for state, looks at once. Returns whether a job was moved
    /// (false: none waiting, already due, or running).
    virtual Result<bool> PollNow(const std::string& deployment_id) = 0;
    /// Jobs waiting (due or not) and leased now, for metrics. A waiting health watch (one per
    /// running deployment, docs/lifecycle.md "Self-healing") is not a backlog: not counted.
    virtual Result<std::pair<std::int64_t, std::int64_t>> QueueDepth() = 0;
};

}  // namespace orch::workflow
