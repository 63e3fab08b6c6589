#pragma once

// In-memory twins of PgDeploymentStore and PgWorkflowStore for unit tests: the same rows, jobs
// and leases, the same status guards and error codes, time read from an injected Clock. They
// pass the store contract suite (tests/support/include/test_support/store_contract.hpp) that
// the PostgreSQL stores pass, so a handler or step tested against them behaves as in production.
#include <common/clock.hpp>
#include <orchestrator/store/deployment_store.hpp>
#include <orchestrator/store/event_store.hpp>
#include <orchestrator/workflow/lease_store.hpp>
#include <orchestrator/workflow/node_stop.hpp>
#include <orchestrator/workflow/workflow_store.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace orch::test {

/// What the two stores share: the deployments table, its resources and attempts, and the jobs.
class InMemoryDatabase {
   public:
    struct Row {
        domain::Deployment deployment;
        Json decision = nullptr;  ///< placement->'decision'
        Json candidates = nullptr;
        int candidate_index = 0;
        Json handle = nullptr;
        std::optional<domain::TimePoint> deadline;
        std::string log;
        std::vector<domain::Resource> resources;
        std::vector<workflow::Attempt> attempts;
        std::map<int, domain::TimePoint> finished_at;  ///< by attempt seq
        int lease_warnings = 0;                        ///< migration 0011's lease columns
        workflow::LeaseState lease_state = workflow::LeaseState::kActive;
        /// The first attempt at a lease's stop (migration 0027); before expires_at: a former lease's.
        std::optional<domain::TimePoint> lease_stop_began;
    };
    struct JobRow {
        workflow::Job job;  ///< lease_owner empty = not leased
        std::optional<domain::TimePoint> lease_until;
        domain::TimePoint run_at{};
        std::string last_error;
    };

    /// What one admitted deployment holds on one quota counter (admission_claims).
    struct ClaimRow {
        workflow::CounterKey key;
        double amount = 0;
        workflow::AdmissionState state = workflow::AdmissionState::kReserved;
        domain::TimePoint since{};  ///< admitted at (migration 0015)
        double pending = 0;         ///< an update's change not yet settled (migration 0028)
    };
    /// fair_share_usage: (issuer, group, resource, day since the epoch) → resource-hours.
    using UsageKey = std::tuple<std::string, std::string, workflow::QuotaResource, std::int64_t>;
    /// fair_share_usage's GPU class rows (migration 0028): (issuer, group, class, day) → GPU-hours.
    using ClassUsageKey = std::tuple<std::string, std::string, std::string, std::int64_t>;

    struct CallbackRow {
        workflow::CallbackDelivery delivery;  ///< lease_owner empty = not leased
        domain::TimePoint next_at{};
        std::optional<domain::TimePoint> lease_until;
        std::string last_error;
    };

    struct EventRow {
        domain::Event event;
        std::optional<domain::Owner> owner;  ///< copied from the deployment, as the events table does
    };

    explicit InMemoryDatabase(const Clock& clock) : clock_(clock) {}

    const Clock& clock() const { return clock_; }
    /// Every operation holds this for its whole duration: one operation, one transaction.
    std::mutex& mutex() { return mutex_; }
    std::map<std::string, Row>& rows() { return rows_; }
    std::vector<JobRow>& jobs() { return jobs_; }
    std::vector<EventRow>& events() { return events_; }
    /// Quota counters and each deployment's claims on them (migration 0009's tables).
    std::map<workflow::CounterKey, workflow::QuotaCounter>& counters() { return counters_; }
    std::map<std::string, std::vector<ClaimRow>>& claims() { return claims_; }
    std::map<UsageKey, double>& fair_share_usage() { return fair_share_usage_; }
    std::map<ClassUsageKey, double>& fair_share_class_usage() { return fair_share_class_usage_; }
    /// Adds the claim's amount × hours since it was held to the day's history (its class's row
    /// for a GPU class counter of the group), as admission::Release does.
    void AddHistory(const ClaimRow& claim);
    std::vector<CallbackRow>& callbacks() { return callbacks_; }
    /// Queues a delivery of the deployment's callback, if it has one (the caller holds the mutex).
    void InsertCallback(const std::string& deployment_id);
    /// Appends events of a deployment with the next ids (the caller holds the mutex).
    void AppendEvents(const std::string& deployment_id, const std::vector<domain::Event>& events);
    /// Appends a job (the caller holds the mutex).
    void InsertJob(const std::string& deployment_id, const workflow::NextJob& next);
    /// Whether the deployment has a workflow job queued or running.
    bool HasWorkflowJob(const std::string& deployment_id) const;
    void DeleteWorkflowJobs(const std::string& deployment_id);
    /// As store/pg_node_stop.cpp: the action job stopping the first STARTED resource (creation
    /// order) of one of `stoppable_types`, unless a workflow job holds the deployment (the
    /// caller holds the mutex).
    workflow::NextStop QueueNextStop(const std::string& deployment_id, const std::vector<std::string>& stoppable_types);
    /// An update's change of claims, all or nothing (admission::ReserveUpdate): the growth that
    /// does not fit, with what its counter holds; nullopt once every change is recorded.
    std::optional<std::pair<workflow::QuotaClaim, double>> ReserveUpdate(
        const std::string& deployment_id, const std::vector<workflow::QuotaClaim>& changes
    );
    /// The update ended (admission::SettleUpdate): completed, its changes become the claims' (the
    /// hours held so far go to the history first); failed, its growth is given back.
    void SettleUpdate(const std::string& deployment_id, bool completed);

   private:
    const Clock& clock_;
    std::mutex mutex_;
    std::map<std::string, Row> rows_;
    std::vector<JobRow> jobs_;
    std::vector<EventRow> events_;
    std::map<workflow::CounterKey, workflow::QuotaCounter> counters_;
    std::map<std::string, std::vector<ClaimRow>> claims_;
    std::map<UsageKey, double> fair_share_usage_;
    std::map<ClassUsageKey, double> fair_share_class_usage_;
    std::vector<CallbackRow> callbacks_;
    std::int64_t next_job_id_ = 1;
    std::int64_t next_callback_id_ = 1;
    std::int64_t next_event_id_ = 1;
};

class InMemoryDeploymentStore final : public store::DeploymentStore {
   public:
    explicit InMemoryDeploymentStore(InMemoryDatabase& db) : db_(db) {}

    Status Create(const store::NewDeployment& created) override;
    Result<std::optional<domain::Deployment>> Get(const std::string& id) override;
    Result<store::Page<domain::Deployment>> List(const store::ListQuery& query) override;
    Result<store::Page<domain::Resource>> ListResources(
        const std::string& deployment_id,
        const std::optional<std::string>& type,
        int page,
        int size,
        const std::vector<store::SortKey>& sort
    ) override;
    Result<std::optional<domain::Resource>> GetResource(
        const std::string& deployment_id, const std::string& resource_id
    ) override;
    Status BeginDelete(const std::string& id, bool force) override;
    Status BeginUpdate(const store::UpdateRequest& update) override;
    Status ResetToDeleteFailed(const std::string& id) override;
    Result<Json> GetPlacement(const std::string& id) override;
    Result<std::string> GetLog(const std::string& id) override;
    Result<std::vector<domain::Attempt>> ListAttempts(const std::string& id) override;
    Status BeginAction(const std::string& id, const std::string& resource_id, const std::string& action) override;
    Status RenewLease(const std::string& id, domain::TimePoint expires_at) override;

   private:
    InMemoryDatabase& db_;
};

/// PgLeaseStore's twin (in_memory_lease_store.cpp).
class InMemoryLeaseStore final : public workflow::LeaseStore {
   public:
    explicit InMemoryLeaseStore(InMemoryDatabase& db) : db_(db) {}

    Result<std::vector<workflow::DueLease>> DueLeases(domain::TimePoint until, int limit) override;
    Result<bool> RecordWarning(
        const std::string& id, domain::TimePoint expires_at, int warning, const domain::Event& event
    ) override;
    Result<workflow::ExpireOutcome> Expire(
        const std::string& id,
        domain::TimePoint expires_at,
        workflow::LeaseAction action,
        const std::vector<std::string>& stoppable_types,
        const domain::Event& event
    ) override;
    Result<bool> AbandonStop(
        const std::string& id, domain::TimePoint expires_at, const std::string& reason, const domain::Event& event
    ) override;

   private:
    InMemoryDatabase& db_;
};

class InMemoryWorkflowStore final : public workflow::WorkflowStore {
   public:
    explicit InMemoryWorkflowStore(InMemoryDatabase& db) : db_(db) {}

    Result<std::vector<workflow::Job>> Claim(const std::string& owner, int max, std::chrono::milliseconds lease)
        override;
    Result<std::vector<std::int64_t>> Heartbeat(
        const std::string& owner, const std::vector<std::int64_t>& ids, std::chrono::milliseconds lease
    ) override;
    Result<std::optional<workflow::WorkflowState>> Load(const std::string& deployment_id) override;
    Status StartAttempt(const workflow::Job& job, const std::string& owner, const workflow::Attempt& attempt) override;
    Status Commit(const workflow::Job& job, const std::string& owner, const workflow::Transition& t) override;
    Status Retry(
        const workflow::Job& job, const std::string& owner, std::chrono::milliseconds delay, const std::string& error
    ) override;
    Result<std::int64_t> PurgeDeleted(std::chrono::milliseconds retention, int limit) override;
    Result<std::int64_t> PurgeEvents(std::chrono::milliseconds retention, int limit) override;
    Result<std::vector<workflow::WaitingRequest>> WaitingRequests(const std::string& issuer, int limit) override;
    Result<std::map<std::string, workflow::ShareVector, std::less<>>> FairShareUsage(
        const std::string& issuer, std::chrono::milliseconds half_life
    ) override;
    Result<std::map<std::string, std::map<std::string, double>, std::less<>>> FairShareClassUsage(
        const std::string& issuer, std::chrono::milliseconds half_life
    ) override;
    Result<std::vector<workflow::QuotaCounter>> QuotaCounters(
        const std::string& issuer, const std::vector<std::string>& groups
    ) override;
    Result<std::vector<workflow::CallbackDelivery>> ClaimCallbacks(
        const std::string& owner, int max, std::chrono::milliseconds lease
    ) override;
    Status FinishCallback(const workflow::CallbackDelivery& delivery) override;
    Status RetryCallback(
        const workflow::CallbackDelivery& delivery, std::chrono::milliseconds delay, const std::string& error
    ) override;
    Result<bool> PollNow(const std::string& deployment_id) override;
    Result<std::pair<std::int64_t, std::int64_t>> QueueDepth() override;

   private:
    InMemoryDatabase& db_;
};

class InMemoryEventStore final : public store::EventStore {
   public:
    explicit InMemoryEventStore(InMemoryDatabase& db) : db_(db) {}

    Result<std::vector<domain::Event>> After(const store::EventQuery& query) override;
    Result<std::int64_t> LatestId() override;
    Result<std::vector<store::LoggedEvent>> Range(std::int64_t after_id, std::int64_t up_to_id, int limit) override;

   private:
    InMemoryDatabase& db_;
};

/// The three together, for tests that want both stores over one database.
struct InMemoryStores {
    explicit InMemoryStores(const Clock& clock) : db(clock) {}
    InMemoryDatabase db;
    InMemoryDeploymentStore deployments{db};
    InMemoryWorkflowStore workflow{db};
    InMemoryEventStore events{db};
    InMemoryLeaseStore leases{db};
};

}  // namespace orch::test
