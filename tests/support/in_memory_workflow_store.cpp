// InMemoryWorkflowStore: the job queue with its leases, and the transitions steps commit.
#include "common/uuid.hpp"
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/workflow/admission_queue.hpp>
#include <orchestrator/workflow/lease_lost.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace orch::test {
namespace {

using DStatus = domain::Status;
using Lock = std::lock_guard<std::mutex>;

using workflow::kLeaseLost;

void ApplyDeployment(InMemoryDatabase::Row& row, const workflow::Transition& t, domain::TimePoint now) {
    auto& d = row.deployment;
    d.updated_at = now;
    if (t.status) {
        d.status = *t.status;
    }
    if (t.status_reason) {
        d.status_reason = *t.status_reason;
    }
    if (t.task) {
        d.task = *t.task;
    }
    if (t.physical_id) {
        d.physical_id = *t.physical_id;
    }
    if (t.provider_name) {
        d.cloud_provider_name = *t.provider_name;
    }
    if (t.provider_endpoint) {
        d.cloud_provider_endpoint = *t.provider_endpoint;
    }
    if (t.outputs) {
        d.outputs = *t.outputs;
    }
    if (t.placement) {
        row.decision = Json::parse(t.placement->decision_json);
        row.candidates = t.placement->candidates;
    }
    if (t.candidate_index) {
        row.candidate_index = *t.candidate_index;
    }
    if (t.handle) {
        row.handle = *t.handle;
    }
    if (!t.append_log.empty()) {
        row.log += t.append_log;
        if (row.log.size() > workflow::kMaxLogChars) {
            std::size_t cut = row.log.size() - workflow::kMaxLogChars;
            while (cut < row.log.size() && (static_cast<unsigned char>(row.log[cut]) & 0xC0U) == 0x80U) {
                ++cut;  // to the start of a UTF-8 sequence
            }
            row.log.erase(0, cut);
        }
    }
    if (t.deadline) {
        row.deadline = *t.deadline;
    }
}

// One ResourceChange on the resource it names (by id, or by node and instance index).
void ApplyChange(domain::Resource& r, const workflow::ResourceChange& c, domain::TimePoint now) {
    if (c.id.empty() ? (r.node_name != c.node || r.instance_index != c.index) : r.id != c.id) {
        return;
    }
    r.updated_at = now;
    r.state = c.state.value_or(r.state);
    if (c.physical_id && !c.physical_id->empty()) {
        r.physical_id = *c.physical_id;
    }
    if (c.metadata) {
        r.metadata = *c.metadata;
    }
}

// An instance the site reports beyond the node's rows (a Deployment's replicas, a release's pods)
// becomes a resource of that node, as PgWorkflowStore does.
void AddReportedInstance(
    std::vector<domain::Resource>& rs, const workflow::ResourceChange& c, bool matched, domain::TimePoint now
) {
    if (matched || !c.id.empty() || c.index <= 0) {
        return;
    }
    const auto first = std::find_if(rs.begin(), rs.end(), [&](const domain::Resource& r) {
        return r.node_name == c.node && r.instance_index == 0 && r.state != domain::NodeState::kDeleted;
    });
    if (first == rs.end()) {
        return;
    }
    domain::Resource added = *first;
    added.id = SequentialUuid();
    added.instance_index = c.index;
    added.created_at = now;
    added.physical_id.clear();
    added.metadata = Json::object();
    added.state = domain::NodeState::kInitial;
    ApplyChange(added, c, now);
    rs.push_back(std::move(added));
}

void ApplyResources(InMemoryDatabase::Row& row, const workflow::Transition& t, domain::TimePoint now) {
    auto& rs = row.resources;
    if (t.drop_deleting_resources) {
        std::erase_if(rs, [](const domain::Resource& r) { return r.state == domain::NodeState::kDeleting; });
    }
    for (auto& r : rs) {
        if (t.resources_state && r.state != domain::NodeState::kDeleted) {
            r.state = *t.resources_state;
            r.updated_at = now;
        }
    }
    for (const auto& c : t.resource_changes) {
        bool matched = false;
        for (auto& r : rs) {
            matched = matched || (c.id.empty() && r.node_name == c.node && r.instance_index == c.index);
            ApplyChange(r, c, now);
        }
        AddReportedInstance(rs, c, matched, now);
    }
}

void ApplyAttempt(InMemoryDatabase::Row& row, const workflow::Attempt& a, domain::TimePoint now) {
    for (auto& stored : row.attempts) {
        if (stored.seq != a.seq) {
            continue;
        }
        stored.outcome = a.outcome;
        stored.cause = a.cause;
        stored.reason = a.reason;
        if (a.outcome == domain::AttemptOutcome::kRunning) {
            row.finished_at.erase(a.seq);
        } else {
            row.finished_at.emplace(a.seq, now);  // keeps an earlier finish
        }
        if (!a.handle.is_null()) {
            stored.handle = a.handle;
        }
        stored.cleaned = stored.cleaned || a.cleaned;
    }
}

std::int64_t DayOf(domain::TimePoint t) {
    return std::chrono::duration_cast<std::chrono::hours>(t.time_since_epoch()).count() / 24;
}

// Gives back what the deployment holds on the quota counters and records its group claims'
// resource-hours in the day's history (as admission::Release does).
void ReleaseClaims(InMemoryDatabase& db, const std::string& deployment_id) {
    const auto it = db.claims().find(deployment_id);
    if (it == db.claims().end()) {
        return;
    }
    for (const auto& claim : it->second) {
        auto& counter = db.counters()[claim.key];
        (claim.state == workflow::AdmissionState::kInUse ? counter.in_use : counter.reserved) -= claim.amount;
        counter.reserved -= std::max(claim.pending, 0.0);  // an update's growth not yet settled
        db.AddHistory(claim);
    }
    db.claims().erase(it);
}

// All claims or none, as the transaction on PostgreSQL (the caller holds the mutex).
// Gives back the deployment's claims on services only (a move to another candidate site, as
// admission::Reserve's `services_only`); no history: it counts the group claims.
void ReleaseServiceClaims(InMemoryDatabase& db, const std::string& deployment_id) {
    auto& mine = db.claims()[deployment_id];
    for (const auto& claim : mine) {
        if (workflow::OnService(claim.key)) {
            auto& counter = db.counters()[claim.key];
            (claim.state == workflow::AdmissionState::kInUse ? counter.in_use : counter.reserved) -= claim.amount;
        }
    }
    std::erase_if(mine, [](const auto& claim) { return workflow::OnService(claim.key); });
}

bool Claimed(const workflow::Admission& admit, const workflow::QuotaClaim& claim) {
    return claim.amount > 0 && (!admit.services_only || workflow::OnService(claim.key));
}

bool ReserveClaims(InMemoryDatabase& db, const std::string& deployment_id, const workflow::Admission& admit) {
    for (const auto& claim : admit.claims) {
        if (!Claimed(admit, claim)) {
            continue;
        }
        const auto it = db.counters().find(claim.key);
        const double held = it == db.counters().end() ? 0 : it->second.reserved + it->second.in_use;
        const double already = [&] {
            double mine = 0;
            for (const auto& c : db.claims()[deployment_id]) {
                mine += c.key == claim.key ? c.amount : 0;
            }
            return mine;
        }();
        if (held - already + claim.amount > claim.limit) {
            return false;
        }
    }
    // A re-admission replaces what the deployment held; a move only its claims on services.
    if (admit.services_only) {
        ReleaseServiceClaims(db, deployment_id);
    } else {
        ReleaseClaims(db, deployment_id);
    }
    auto& mine = db.claims()[deployment_id];
    for (const auto& claim : admit.claims) {
        if (!Claimed(admit, claim)) {
            continue;
        }
        auto& counter = db.counters()[claim.key];
        counter.key = claim.key;
        counter.reserved += claim.amount;
        mine.push_back({claim.key, claim.amount, workflow::AdmissionState::kReserved, db.clock().now()});
    }
    return true;
}

void SettleClaims(InMemoryDatabase& db, const std::string& deployment_id, const workflow::Transition& t) {
    if (t.status == DStatus::kCreateFailed || t.status == DStatus::kDeleteComplete) {
        ReleaseClaims(db, deployment_id);
    } else if (t.status == DStatus::kUpdateComplete || t.status == DStatus::kUpdateFailed) {
        db.SettleUpdate(deployment_id, t.status == DStatus::kUpdateComplete);
    } else if (t.status == DStatus::kCreateComplete) {
        for (auto& claim : db.claims()[deployment_id]) {
            if (claim.state == workflow::AdmissionState::kReserved) {
                auto& counter = db.counters()[claim.key];
                counter.reserved -= claim.amount;
                counter.in_use += claim.amount;
                claim.state = workflow::AdmissionState::kInUse;
            }
        }
    }
}

}  // namespace

Result<std::vector<workflow::Job>> InMemoryWorkflowStore::Claim(
    const std::string& owner, int max, std::chrono::milliseconds lease
) {
    const Lock lock(db_.mutex());
    const auto now = db_.clock().now();
    std::vector<InMemoryDatabase::JobRow*> due;
    for (auto& j : db_.jobs()) {
        if (j.run_at <= now && (!j.lease_until || *j.lease_until < now)) {
            due.push_back(&j);
        }
    }
    std::stable_sort(due.begin(), due.end(), [](const auto* a, const auto* b) { return a->run_at < b->run_at; });
    std::vector<workflow::Job> out;
    for (auto* j : due) {
        if (static_cast<int>(out.size()) >= max) {
            break;
        }
        j->job.lease_owner = owner;
        j->lease_until = now + lease;
        ++j->job.attempts;
        out.push_back(j->job);
    }
    return out;
}

Result<std::vector<std::int64_t>> InMemoryWorkflowStore::Heartbeat(
    const std::string& owner, const std::vector<std::int64_t>& ids, std::chrono::milliseconds lease
) {
    const Lock lock(db_.mutex());
    std::vector<std::int64_t> lost;
    for (const auto id : ids) {
        auto& jobs = db_.jobs();
        const auto j = std::find_if(jobs.begin(), jobs.end(), [&](const auto& x) { return x.job.id == id; });
        if (j == jobs.end() || j->job.lease_owner != owner) {
            lost.push_back(id);
        } else {
            j->lease_until = db_.clock().now() + lease;
        }
    }
    return lost;
}

Result<std::optional<workflow::WorkflowState>> InMemoryWorkflowStore::Load(const std::string& deployment_id) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(deployment_id);
    if (it == db_.rows().end()) {
        return std::optional<workflow::WorkflowState>();
    }
    const auto& row = it->second;
    workflow::WorkflowState s;
    s.deployment = row.deployment;
    s.candidates = row.candidates;
    s.candidate_index = row.candidate_index;
    s.handle = row.handle;
    s.deadline = row.deadline;
    s.attempts = row.attempts;
    std::sort(s.attempts.begin(), s.attempts.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
    s.resources = row.resources;
    std::stable_sort(s.resources.begin(), s.resources.end(), [](const auto& a, const auto& b) {
        return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
    });
    return std::optional(std::move(s));
}

namespace {
bool HoldsLease(InMemoryDatabase& db, const workflow::Job& job, const std::string& owner) {
    return std::any_of(db.jobs().begin(), db.jobs().end(), [&](const auto& j) {
        return j.job.id == job.id && j.job.lease_owner == owner;
    });
}

// Gives a leased job back (Retry, and Commit when admission does not fit), as the PostgreSQL
// store's ReleaseJob: it runs again after `delay` with `reason` as its last error; `waiting` (the
// admission queue's record, null if none) joins its payload. False when `owner` no longer holds it.
bool ReleaseJob(
    InMemoryDatabase& db,
    const workflow::Job& job,
    const std::string& owner,
    std::chrono::milliseconds delay,
    const std::string& reason,
    const Json& waiting = nullptr
) {
    for (auto& j : db.jobs()) {
        if (j.job.id == job.id && j.job.lease_owner == owner) {
            j.job.lease_owner.clear();
            j.lease_until.reset();
            j.last_error = reason.substr(0, 2000);
            j.run_at = db.clock().now() + delay;
            if (!waiting.is_null()) {
                j.job.payload[workflow::kWaitingMember] = waiting;
            }
            return true;
        }
    }
    return false;
}
}  // namespace

Status InMemoryWorkflowStore::StartAttempt(
    const workflow::Job& job, const std::string& owner, const workflow::Attempt& a
) {
    const Lock lock(db_.mutex());
    if (!HoldsLease(db_, job, owner)) {
        return kLeaseLost;
    }
    const auto it = db_.rows().find(job.deployment_id);
    if (it == db_.rows().end()) {
        return Error::Internal("attempt of a missing deployment");  // a foreign-key violation there
    }
    auto& attempts = it->second.attempts;
    if (std::none_of(attempts.begin(), attempts.end(), [&](const auto& x) { return x.seq == a.seq; })) {
        workflow::Attempt stored;
        stored.seq = a.seq;
        stored.provider_id = a.provider_id;
        stored.provider_name = a.provider_name;
        stored.service_id = a.service_id;
        stored.target = a.target;
        stored.started_at = db_.clock().now();
        stored.outcome = domain::AttemptOutcome::kRunning;
        attempts.push_back(std::move(stored));
    }
    return Ok();
}

Status InMemoryWorkflowStore::Commit(
    const workflow::Job& job, const std::string& owner, const workflow::Transition& t
) {
    const Lock lock(db_.mutex());
    if (!HoldsLease(db_, job, owner)) {
        return kLeaseLost;
    }
    const auto now = db_.clock().now();
    const auto row = db_.rows().find(job.deployment_id);
    if (t.admit && !ReserveClaims(db_, job.deployment_id, *t.admit)) {
        // Queued: only the reason is written; the job waits its delay with its lease given back.
        if (row != db_.rows().end()) {
            workflow::Transition queued;  // the reason, and the log line of a wait starting now
            queued.status_reason = t.admit->queued_reason;
            queued.append_log = t.admit->queued_log;
            ApplyDeployment(row->second, queued, now);
            db_.AppendEvents(job.deployment_id, t.admit->queued_events);
        }
        ReleaseJob(db_, job, owner, t.admit->retry_delay, t.admit->queued_reason, t.admit->waiting);
        return Ok();
    }
    if (const auto it = row; it != db_.rows().end()) {
        ApplyDeployment(it->second, t, now);
        ApplyResources(it->second, t, now);
        if (t.finish_attempt) {
            ApplyAttempt(it->second, *t.finish_attempt, now);
        }
    }
    std::erase_if(db_.jobs(), [&](const auto& j) { return j.job.id == job.id; });
    if (t.next) {
        db_.InsertJob(job.deployment_id, *t.next);
    }
    for (const auto& side : t.side_jobs) {
        db_.InsertJob(job.deployment_id, side);
    }
    SettleClaims(db_, job.deployment_id, t);
    if (t.callback) {
        db_.InsertCallback(job.deployment_id);
    }
    db_.AppendEvents(job.deployment_id, t.events);
    return Ok();
}

Status InMemoryWorkflowStore::Retry(
    const workflow::Job& job, const std::string& owner, std::chrono::milliseconds delay, const std::string& error
) {
    const Lock lock(db_.mutex());
    return ReleaseJob(db_, job, owner, delay, error) ? Ok() : Status(kLeaseLost);
}

Result<std::map<std::string, workflow::ShareVector, std::less<>>> InMemoryWorkflowStore::FairShareUsage(
    const std::string& issuer, std::chrono::milliseconds half_life
) {
    const Lock lock(db_.mutex());
    const std::int64_t today = DayOf(db_.clock().now());
    const double half_life_days = static_cast<double>(half_life.count()) / 86'400'000.0;
    std::map<std::string, workflow::ShareVector, std::less<>> out;
    for (const auto& [key, amount] : db_.fair_share_usage()) {
        const auto& [owner, group, resource, day] = key;
        if (owner != issuer || day <= today - 366) {
            continue;
        }
        const double age = static_cast<double>(today - day);
        const double decayed = half_life_days > 0 ? amount * std::pow(0.5, age / half_life_days) : amount;
        auto& usage = out[group];
        if (resource == workflow::QuotaResource::kGpus) {
            usage.gpus += decayed;
        } else if (resource == workflow::QuotaResource::kCpus) {
            usage.cpus += decayed;
        } else if (resource == workflow::QuotaResource::kRamMb) {
            usage.ram_mb += decayed;
        }
    }
    return out;
}

Result<std::vector<workflow::QuotaCounter>> InMemoryWorkflowStore::QuotaCounters(
    const std::string& issuer, const std::vector<std::string>& groups
) {
    const Lock lock(db_.mutex());
    std::vector<workflow::QuotaCounter> out;
    for (const auto& [key, counter] : db_.counters()) {
        if (key.issuer == issuer &&
            (groups.empty() || std::find(groups.begin(), groups.end(), key.group) != groups.end())) {
            out.push_back(counter);
        }
    }
    return out;
}

Result<std::map<std::string, std::map<std::string, double>, std::less<>>> InMemoryWorkflowStore::FairShareClassUsage(
    const std::string& issuer, std::chrono::milliseconds half_life
) {
    const Lock lock(db_.mutex());
    const std::int64_t today = DayOf(db_.clock().now());
    const double half_life_days = static_cast<double>(half_life.count()) / 86'400'000.0;
    std::map<std::string, std::map<std::string, double>, std::less<>> out;
    for (const auto& [key, amount] : db_.fair_share_class_usage()) {
        const auto& [owner, group, gpu_class, day] = key;
        if (owner != issuer || day <= today - 366) {
            continue;
        }
        const double age = static_cast<double>(today - day);
        out[group][gpu_class] += half_life_days > 0 ? amount * std::pow(0.5, age / half_life_days) : amount;
    }
    return out;
}

Result<std::vector<workflow::WaitingRequest>> InMemoryWorkflowStore::WaitingRequests(
    const std::string& issuer, int limit
) {
    const Lock lock(db_.mutex());
    std::vector<std::pair<domain::TimePoint, workflow::WaitingRequest>> found;
    for (const auto& j : db_.jobs()) {
        const auto row = db_.rows().find(j.job.deployment_id);
        if (row == db_.rows().end() || !j.job.payload.contains(workflow::kWaitingMember)) {
            continue;
        }
        const auto& d = row->second.deployment;
        if ((d.owner ? d.owner->issuer : std::string()) != issuer || d.status != DStatus::kCreateInProgress) {
            continue;
        }
        if (auto w = workflow::WaitingFromJson(d.id, j.job.payload[workflow::kWaitingMember])) {
            found.emplace_back(d.created_at, std::move(*w));
        }
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return std::tie(a.first, a.second.deployment_id) < std::tie(b.first, b.second.deployment_id);
    });
    std::vector<workflow::WaitingRequest> out;
    for (auto& [created, w] : found) {
        if (std::cmp_greater_equal(out.size(), limit)) {
            break;
        }
        out.push_back(std::move(w));
    }
    return out;
}

Result<bool> InMemoryWorkflowStore::PollNow(const std::string& deployment_id) {
    const Lock lock(db_.mutex());
    const auto now = db_.clock().now();
    bool moved = false;
    for (auto& j : db_.jobs()) {
        const bool poll = j.job.kind == workflow::JobKind::kPoll || j.job.kind == workflow::JobKind::kUpdatePoll;
        const bool leased = j.lease_until && *j.lease_until >= now;
        if (j.job.deployment_id == deployment_id && poll && !leased && j.run_at > now) {
            j.run_at = now;
            moved = true;
        }
    }
    return moved;
}

}  // namespace orch::test
