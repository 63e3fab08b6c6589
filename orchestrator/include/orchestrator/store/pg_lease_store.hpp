#pragma once

#include "orchestrator/store/pg_pool.hpp"
#include "orchestrator/workflow/lease_store.hpp"

namespace orch::store {

/// LeaseStore on PostgreSQL (migration 0011): due rows claimed with FOR UPDATE SKIP LOCKED,
/// every write guarded by the expiry it was decided on.
class PgLeaseStore final : public workflow::LeaseStore {
   public:
    explicit PgLeaseStore(PgPool& pool) : pool_(pool) {}

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
    PgPool& pool_;
};

}  // namespace orch::store
