#pragma once

#include "orchestrator/store/event_store.hpp"
#include "orchestrator/store/pg_pool.hpp"

namespace orch::store {

/// EventStore on PostgreSQL: the events table (migration 0006).
class PgEventStore final : public EventStore {
   public:
    explicit PgEventStore(PgPool& pool) : pool_(pool) {}

    Result<std::vector<domain::Event>> After(const EventQuery& query) override;
    Result<std::int64_t> LatestId() override;
    Result<std::vector<LoggedEvent>> Range(std::int64_t after_id, std::int64_t up_to_id, int limit) override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
