// The in-memory workflow store's housekeeping (pg_workflow_housekeeping.cpp's fake).
#include "test_support/in_memory_stores.hpp"

#include <algorithm>

namespace orch::test {
namespace {

using DStatus = domain::Status;
using Lock = std::lock_guard<std::mutex>;

}  // namespace

Result<std::int64_t> InMemoryWorkflowStore::PurgeDeleted(std::chrono::milliseconds retention, int limit) {
    const Lock lock(db_.mutex());
    const auto cutoff = db_.clock().now() - retention;
    std::int64_t purged = 0;
    for (auto it = db_.rows().begin(); it != db_.rows().end() && purged < limit;) {
        const auto& d = it->second.deployment;
        const bool has_jobs = std::any_of(db_.jobs().begin(), db_.jobs().end(), [&](const auto& j) {
            return j.job.deployment_id == d.id;
        });
        if (d.status == DStatus::kDeleteComplete && d.updated_at < cutoff && !has_jobs) {
            db_.claims().erase(d.id);  // ON DELETE CASCADE
            it = db_.rows().erase(it);
            ++purged;
        } else {
            ++it;
        }
    }
    return purged;
}

Result<std::int64_t> InMemoryWorkflowStore::PurgeEvents(std::chrono::milliseconds retention, int limit) {
    const Lock lock(db_.mutex());
    const auto cutoff = db_.clock().now() - retention;
    std::int64_t purged = 0;
    std::erase_if(db_.events(), [&](const auto& row) {
        if (purged < limit && row.event.time < cutoff) {
            ++purged;
            return true;
        }
        return false;
    });
    return purged;
}

Result<std::pair<std::int64_t, std::int64_t>> InMemoryWorkflowStore::QueueDepth() {
    const Lock lock(db_.mutex());
    const auto now = db_.clock().now();
    std::int64_t waiting = 0;
    std::int64_t leased = 0;
    for (const auto& j : db_.jobs()) {
        if (!j.lease_until || *j.lease_until < now) {
            waiting += j.job.kind == workflow::JobKind::kHealth ? 0 : 1;  // a watch, not a backlog
        } else {
            ++leased;
        }
    }
    return std::make_pair(waiting, leased);
}

}  // namespace orch::test
