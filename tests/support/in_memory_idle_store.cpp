#include "test_support/in_memory_idle_store.hpp"

#include <algorithm>

namespace orch::test {
namespace {

using Lock = std::lock_guard<std::mutex>;
using workflow::IdleState;
using workflow::IdleStep;

bool Running(const domain::Deployment& d) {
    return d.status == domain::Status::kCreateComplete || d.status == domain::Status::kUpdateComplete;
}

std::vector<std::string> StoppableTypes() {
    return {workflow::kIdleStoppableTypes.begin(), workflow::kIdleStoppableTypes.end()};
}

}  // namespace

Result<std::vector<workflow::IdleCandidate>> InMemoryIdleStore::IdleCandidates(const std::string& after, int limit) {
    const Lock lock(db_.mutex());
    std::vector<workflow::IdleCandidate> out;
    for (auto it = db_.rows().upper_bound(after); it != db_.rows().end() && static_cast<int>(out.size()) < limit;
         ++it) {
        const auto& d = it->second.deployment;
        if (d.req_gpus <= 0 || !Running(d)) {
            continue;
        }
        workflow::IdleCandidate c{d.id, d.owner ? d.owner->issuer : "", d.user_group, d.physical_id, d.req_gpus, {}};
        if (const auto w = watches_.find(d.id); w != watches_.end()) {
            c.watch = w->second;
        }
        out.push_back(std::move(c));
    }
    return out;
}

Result<bool> InMemoryIdleStore::ApplyIdle(const workflow::IdleChange& change) {
    const Lock lock(db_.mutex());
    const auto row = db_.rows().find(change.deployment_id);
    if (row == db_.rows().end() || !Running(row->second.deployment) || !Apply(row->second, change)) {
        return false;
    }
    if (!change.events.empty()) {
        db_.InsertCallback(change.deployment_id);
        db_.AppendEvents(change.deployment_id, change.events);
    }
    return true;
}

bool InMemoryIdleStore::Apply(InMemoryDatabase::Row& row, const workflow::IdleChange& c) {
    const auto w = watches_.find(c.deployment_id);
    switch (c.step) {
        case IdleStep::kStartWatch:
            return watches_.emplace(c.deployment_id, workflow::IdleWatch{IdleState::kIdle, c.now, {}}).second;
        case IdleStep::kReset:
            if (w == watches_.end() || w->second.state != c.from.value_or(IdleState::kIdle)) {
                return false;
            }
            watches_.erase(w);
            return true;
        case IdleStep::kNotify:
            if (w == watches_.end() || w->second.state != IdleState::kIdle) {
                return false;
            }
            w->second.state = IdleState::kNotified;
            w->second.notified_at = c.now;
            return true;
        case IdleStep::kReclaim:
            return Reclaim(row, c);
        case IdleStep::kStopNext:
            return StopNext(c);
        case IdleStep::kStopGivenUp:
            if (w == watches_.end() || w->second.state != IdleState::kStopping) {
                return false;
            }
            w->second.state = IdleState::kReclaimed;
            return true;
        case IdleStep::kNone:
            break;
    }
    return false;
}

// As PgIdleStore: the action is queued in the same step, or nothing is written.
bool InMemoryIdleStore::Reclaim(InMemoryDatabase::Row& row, const workflow::IdleChange& c) {
    const auto w = watches_.find(c.deployment_id);
    if (w == watches_.end() || w->second.state != IdleState::kNotified) {
        return false;
    }
    auto& d = row.deployment;
    if (c.action == workflow::IdleAction::kDelete) {
        d.status = domain::Status::kDeleteInProgress;
        d.status_reason = "idle GPUs reclaimed";
        for (auto& r : row.resources) {
            r.state = domain::NodeState::kDeleting;
        }
        db_.DeleteWorkflowJobs(d.id);
        db_.InsertJob(d.id, {workflow::JobKind::kDelete, Json{{"force", false}}, {}, true});
    } else if (db_.QueueNextStop(d.id, StoppableTypes()) != workflow::NextStop::kQueued) {
        return false;
    }
    w->second.state = c.action == workflow::IdleAction::kStop ? IdleState::kStopping : IdleState::kReclaimed;
    w->second.reclaimed_at = c.now;
    const std::string issuer = d.owner ? d.owner->issuer : "";
    auto& hours = reclaimed_[{issuer, d.user_group}];
    hours.issuer = issuer;
    hours.group = d.user_group;
    hours.gpu_hours += c.gpu_hours;
    ++hours.reclamations;
    return true;
}

// As PgIdleStore: the next node's stop; none left: reclaimed; busy: nothing written.
bool InMemoryIdleStore::StopNext(const workflow::IdleChange& c) {
    const auto w = watches_.find(c.deployment_id);
    if (w == watches_.end() || w->second.state != IdleState::kStopping) {
        return false;
    }
    const auto next = db_.QueueNextStop(c.deployment_id, StoppableTypes());
    if (next == workflow::NextStop::kNoneLeft) {
        w->second.state = IdleState::kReclaimed;
    }
    return next != workflow::NextStop::kBusy;
}

Result<std::vector<workflow::ReclaimedHours>> InMemoryIdleStore::Reclaimed(
    const std::string& issuer, const std::vector<std::string>& groups
) {
    const Lock lock(db_.mutex());
    std::vector<workflow::ReclaimedHours> out;
    for (const auto& [key, hours] : reclaimed_) {
        if (key.first == issuer &&
            (groups.empty() || std::find(groups.begin(), groups.end(), key.second) != groups.end())) {
            out.push_back(hours);
        }
    }
    return out;
}

Result<std::vector<workflow::ReclaimedHours>> InMemoryIdleStore::AllReclaimed() {
    const Lock lock(db_.mutex());
    std::vector<workflow::ReclaimedHours> out;
    for (const auto& [key, hours] : reclaimed_) {
        out.push_back(hours);
    }
    return out;
}

}  // namespace orch::test
