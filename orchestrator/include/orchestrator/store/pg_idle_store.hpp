#pragma once

#include "orchestrator/store/pg_pool.hpp"
#include "orchestrator/workflow/idle_store.hpp"

namespace orch::store {

/// Idle reclamation in PostgreSQL (idle_watch, idle_reclaimed: migration 0012_idle.sql).
class PgIdleStore final : public workflow::IdleStore {
   public:
    explicit PgIdleStore(PgPool& pool) : pool_(pool) {}
    Result<std::vector<workflow::IdleCandidate>> IdleCandidates(const std::string& after, int limit) override;
    Result<bool> ApplyIdle(const workflow::IdleChange& change) override;
    Result<std::vector<workflow::ReclaimedHours>> Reclaimed(
        const std::string& issuer, const std::vector<std::string>& groups
    ) override;
    Result<std::vector<workflow::ReclaimedHours>> AllReclaimed() override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
