#pragma once

#include "common/result.hpp"
#include "orchestrator/domain/schedule.hpp"
#include "orchestrator/store/deployment_store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace orch::store {

/// Which schedules GET /schedules returns (`owner` required, as in ListQuery).
struct ScheduleQuery {
    auth::OwnerFilter owner;
    int page = 0;
    int size = 10;
    std::vector<SortKey> sort;  ///< empty = created_at desc
};

/// What the file matcher needs of a RUNNING schedule.
struct RunningSchedule {
    std::string id;
    std::string file_expression;
};

/// Schedule persistence. Errors: kUnavailable (database), kInvalidArgument (unknown sort column).
class ScheduleStore {
   public:
    virtual ~ScheduleStore() = default;

    virtual Status Create(const domain::Schedule& schedule) = 0;
    virtual Result<std::optional<domain::Schedule>> Get(const std::string& id) = 0;
    virtual Result<Page<domain::Schedule>> List(const ScheduleQuery& query) = 0;
    /// RUNNING schedules that `owner` allows with id > `after_id` (empty: from the start), in id
    /// order, at most `limit`.
    virtual Result<std::vector<RunningSchedule>> ListRunning(
        const auth::OwnerFilter& owner, const std::string& after_id, int limit
    ) = 0;
    /// Events of one schedule, each with its deployment when that still exists.
    virtual Result<Page<domain::ScheduleEvent>> ListEvents(
        const std::string& schedule_id, int page, int size, const std::vector<SortKey>& sort
    ) = 0;
    /// In one transaction: records the event and creates its deployment (with its first workflow
    /// step), unless this schedule already has an event for the same scope and name. Returns
    /// false (and stores nothing) in that case: a file triggers a schedule once.
    virtual Result<bool> CreateEvent(const domain::ScheduleEvent& event, const NewDeployment& deployment) = 0;
};

}  // namespace orch::store
