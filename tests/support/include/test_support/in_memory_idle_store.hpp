#pragma once

// The in-memory twin of PgIdleStore (migration 0012_idle.sql) over an InMemoryDatabase: the same
// conditional steps, the same events and callbacks; held to the same contract
// (store_contract.hpp, IdleReclamation).
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/workflow/idle_store.hpp>

#include <map>

namespace orch::test {

class InMemoryIdleStore final : public workflow::IdleStore {
   public:
    explicit InMemoryIdleStore(InMemoryDatabase& db) : db_(db) {}

    Result<std::vector<workflow::IdleCandidate>> IdleCandidates(const std::string& after, int limit) override;
    Result<bool> ApplyIdle(const workflow::IdleChange& change) override;
    Result<std::vector<workflow::ReclaimedHours>> Reclaimed(
        const std::string& issuer, const std::vector<std::string>& groups
    ) override;
    Result<std::vector<workflow::ReclaimedHours>> AllReclaimed() override;

   private:
    bool Apply(InMemoryDatabase::Row& row, const workflow::IdleChange& change);
    bool Reclaim(InMemoryDatabase::Row& row, const workflow::IdleChange& change);
    bool StopNext(const workflow::IdleChange& change);

    InMemoryDatabase& db_;
    std::map<std::string, workflow::IdleWatch> watches_;
    std::map<std::pair<std::string, std::string>, workflow::ReclaimedHours> reclaimed_;
};

}  // namespace orch::test
