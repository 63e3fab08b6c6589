#include "test_support/in_memory_stores.hpp"

#include <algorithm>

namespace orch::test {
namespace {

using DStatus = domain::Status;
using Lock = std::lock_guard<std::mutex>;
using workflow::ExpireOutcome;
using workflow::LeaseState;

bool Deleting(DStatus status) {
    return status == DStatus::kDeleteInProgress || status == DStatus::kDeleteComplete;
}

bool Settled(DStatus status) {
    return status == DStatus::kCreateComplete || status == DStatus::kUpdateComplete || status == DStatus::kUpdateFailed;
}

// The row whose lease still ends at `expires_at` and is not over; null otherwise.
InMemoryDatabase::Row* LeaseRow(InMemoryDatabase& db, const std::string& id, domain::TimePoint expires_at) {
    const auto it = db.rows().find(id);
    if (it == db.rows().end() || it->second.lease_state == LeaseState::kExpired ||
        it->second.deployment.expires_at != expires_at) {
        return nullptr;
    }
    return &it->second;
}

}  // namespace

Result<std::vector<workflow::DueLease>> InMemoryLeaseStore::DueLeases(domain::TimePoint until, int limit) {
    const Lock lock(db_.mutex());
    std::vector<workflow::DueLease> out;
    for (const auto& [id, row] : db_.rows()) {
        const auto& d = row.deployment;
        if (!d.expires_at || *d.expires_at > until || row.lease_state == LeaseState::kExpired || Deleting(d.status)) {
            continue;
        }
        std::optional<domain::TimePoint> began;
        if (row.lease_stop_began && *row.lease_stop_began >= *d.expires_at) {
            began = row.lease_stop_began;
        }
        out.push_back({id, *d.expires_at, row.lease_warnings, row.lease_state, d.lease_action, d.status, d.kind, began}
        );
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.expires_at < b.expires_at; });
    if (out.size() > static_cast<std::size_t>(std::max(limit, 0))) {
        out.resize(static_cast<std::size_t>(std::max(limit, 0)));
    }
    return out;
}

Result<bool> InMemoryLeaseStore::RecordWarning(
    const std::string& id, domain::TimePoint expires_at, int warning, const domain::Event& event
) {
    const Lock lock(db_.mutex());
    auto* row = LeaseRow(db_, id, expires_at);
    if (row == nullptr || row->lease_state != LeaseState::kActive || row->lease_warnings >= warning) {
        return false;
    }
    row->lease_warnings = warning;
    db_.InsertCallback(id);
    db_.AppendEvents(id, {event});
    return true;
}

Result<ExpireOutcome> InMemoryLeaseStore::Expire(
    const std::string& id,
    domain::TimePoint expires_at,
    workflow::LeaseAction action,
    const std::vector<std::string>& stoppable_types,
    const domain::Event& event
) {
    const Lock lock(db_.mutex());
    auto* row = LeaseRow(db_, id, expires_at);
    if (row == nullptr) {
        return ExpireOutcome::kStale;
    }
    auto& d = row->deployment;
    const bool first = row->lease_state == LeaseState::kActive;
    const auto now = db_.clock().now();
    if (Deleting(d.status)) {
        row->lease_state = LeaseState::kExpired;
        return ExpireOutcome::kDeleting;
    }
    ExpireOutcome outcome = ExpireOutcome::kExpired;
    if (action == workflow::LeaseAction::kDelete) {
        d.status = DStatus::kDeleteInProgress;
        d.status_reason.clear();
        d.task = domain::Task::kNone;
        d.updated_at = now;
        for (auto& r : row->resources) {
            r.state = domain::NodeState::kDeleting;
            r.updated_at = now;
        }
        db_.DeleteWorkflowJobs(id);
        db_.InsertJob(id, workflow::NextJob{workflow::JobKind::kDelete, Json{{"force", false}}, {}, true});
        row->lease_state = LeaseState::kExpired;
        outcome = ExpireOutcome::kDeleting;
    } else {
        // As PgLeaseStore: the first attempt's time, kept for this lease (busy or not).
        if (!row->lease_stop_began || *row->lease_stop_began < expires_at) {
            row->lease_stop_began = event.time;
        }
        const auto next = Settled(d.status) ? db_.QueueNextStop(id, stoppable_types) : workflow::NextStop::kBusy;
        if (next == workflow::NextStop::kBusy) {
            return ExpireOutcome::kBusy;
        }
        row->lease_state = next == workflow::NextStop::kQueued ? LeaseState::kStopping : LeaseState::kExpired;
        outcome = next == workflow::NextStop::kQueued ? ExpireOutcome::kStopping : ExpireOutcome::kExpired;
    }
    if (first) {
        db_.InsertCallback(id);
        db_.AppendEvents(id, {event});
    }
    return outcome;
}

Result<bool> InMemoryLeaseStore::AbandonStop(
    const std::string& id, domain::TimePoint expires_at, const std::string& reason, const domain::Event& event
) {
    const Lock lock(db_.mutex());
    auto* row = LeaseRow(db_, id, expires_at);
    if (row == nullptr) {
        return false;
    }
    row->lease_state = LeaseState::kExpired;
    row->deployment.status_reason = reason;
    db_.InsertCallback(id);
    db_.AppendEvents(id, {event});
    return true;
}

}  // namespace orch::test
