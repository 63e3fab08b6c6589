#pragma once

// The in-memory twin of PgElasticStore (migration 0014): per-deployment turns and memory beside
// the InMemoryDatabase's deployments and events, under the database's one mutex.
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/workflow/elastic_store.hpp>

#include <map>
#include <string>

namespace orch::test {

class InMemoryElasticStore final : public workflow::ElasticStore {
   public:
    explicit InMemoryElasticStore(InMemoryDatabase& db) : db_(db) {}

    Result<std::vector<std::string>> Candidates(int limit) override;
    Result<std::optional<workflow::ElasticMemory>> ClaimTurn(
        const std::string& deployment_id, workflow::ElasticTime now, std::chrono::milliseconds gap
    ) override;
    Status Save(
        const std::string& deployment_id,
        const workflow::ElasticMemory& memory,
        const std::optional<domain::Event>& event
    ) override;

   private:
    struct Row {
        workflow::ElasticTime checked_at{};
        workflow::ElasticMemory memory;
    };
    InMemoryDatabase& db_;
    std::map<std::string, Row> rows_;
};

}  // namespace orch::test
