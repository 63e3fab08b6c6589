#pragma once

#include "orchestrator/store/pg_pool.hpp"
#include "orchestrator/store/schedule_store.hpp"

namespace orch::store {

/// ScheduleStore on PostgreSQL (tables from migrations 0002 and 0004).
class PgScheduleStore final : public ScheduleStore {
   public:
    explicit PgScheduleStore(PgPool& pool) : pool_(pool) {}

    Status Create(const domain::Schedule& schedule) override;
    Result<std::optional<domain::Schedule>> Get(const std::string& id) override;
    Result<Page<domain::Schedule>> List(const ScheduleQuery& query) override;
    Result<std::vector<RunningSchedule>> ListRunning(
        const auth::OwnerFilter& owner, const std::string& after_id, int limit
    ) override;
    Result<Page<domain::ScheduleEvent>> ListEvents(
        const std::string& schedule_id, int page, int size, const std::vector<SortKey>& sort
    ) override;
    Result<bool> CreateEvent(const domain::ScheduleEvent& event, const NewDeployment& deployment) override;

   private:
    PgPool& pool_;
};

}  // namespace orch::store
