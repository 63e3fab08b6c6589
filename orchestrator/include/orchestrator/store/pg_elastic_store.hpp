#pragma once

#include "orchestrator/store/pg_pool.hpp"
#include "orchestrator/workflow/elastic_store.hpp"

namespace orch::store {

/// ElasticStore on PostgreSQL: the elastic_state table (migration 0014) and the events table.
class PgElasticStore final : public workflow::ElasticStore {
   public:
    explicit PgElasticStore(PgPool& pool) : pool_(pool) {}

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
    PgPool& pool_;
};

}  // namespace orch::store
