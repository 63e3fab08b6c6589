#pragma once

#include "orchestrator/store/pg_pool.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

namespace orch::store {

/// WorkflowStore on PostgreSQL: the jobs table claimed with FOR UPDATE SKIP LOCKED.
class PgWorkflowStore final : public workflow::WorkflowStore {
   public:
    explicit PgWorkflowStore(PgPool& pool) : pool_(pool) {}

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
    Result<std::vector<workflow::QuotaCounter>> QuotaCounters(
        const std::string& issuer, const std::vector<std::string>& groups
    ) override;
    Result<std::map<std::string, workflow::ShareVector, std::less<>>> FairShareUsage(
        const std::string& issuer, std::chrono::milliseconds half_life
    ) override;
    Result<std::map<std::string, std::map<std::string, double>, std::less<>>> FairShareClassUsage(
        const std::string& issuer, std::chrono::milliseconds half_life
    ) override;
    Result<std::vector<workflow::CallbackDelivery>> ClaimCallbacks(
        const std::string& owner, int max, std::chrono::milliseconds lease
    ) override;
    Status FinishCallback(const workflow::CallbackDelivery& delivery) override;
    Status RetryCallback(
        const workflow::CallbackDelivery& delivery, std::chrono::milliseconds delay, const std::string& error
    ) override;
    Result<std::vector<workflow::WaitingRequest>> WaitingRequests(const std::string& issuer, int limit) override;
    Result<bool> PollNow(const std::string& deployment_id) override;
    Result<std::pair<std::int64_t, std::int64_t>> QueueDepth() override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
