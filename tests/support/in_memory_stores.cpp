// InMemoryDatabase and InMemoryDeploymentStore: rows, owner scoping, ordering and the status guards.
#include "test_support/in_memory_stores.hpp"

#include <algorithm>

namespace orch::test {
namespace {

using DStatus = domain::Status;
using Lock = std::lock_guard<std::mutex>;

Error NotFound(const std::string& id) {
    return Error::NotFound("The deployment <" + id + "> doesn't exist");
}

bool Updatable(DStatus s) {
    return s == DStatus::kCreateComplete || s == DStatus::kUpdateComplete || s == DStatus::kUpdateFailed;
}

// -1, 0 or 1 as PostgreSQL orders the column (ASCII text here; ids are canonical lowercase uuids,
// whose text order is their uuid order).
template <typename T>
int Cmp(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareDeployments(const domain::Deployment& a, const domain::Deployment& b, const std::string& column) {
    if (column == "created_at") {
        return Cmp(a.created_at, b.created_at);
    }
    if (column == "updated_at") {
        return Cmp(a.updated_at, b.updated_at);
    }
    if (column == "status") {
        return Cmp(domain::StatusName(a.status), domain::StatusName(b.status));
    }
    if (column == "task") {
        return Cmp(domain::TaskName(a.task), domain::TaskName(b.task));
    }
    if (column == "cloud_provider_name") {
        return Cmp(a.cloud_provider_name, b.cloud_provider_name);
    }
    if (column == "user_group") {
        return Cmp(a.user_group, b.user_group);
    }
    return Cmp(a.id, b.id);
}

int CompareResources(const domain::Resource& a, const domain::Resource& b, const std::string& column) {
    if (column == "created_at") {
        return Cmp(a.created_at, b.created_at);
    }
    if (column == "updated_at") {
        return Cmp(a.updated_at, b.updated_at);
    }
    if (column == "state") {
        return Cmp(domain::NodeStateName(a.state), domain::NodeStateName(b.state));
    }
    if (column == "node_name") {
        return Cmp(a.node_name, b.node_name);
    }
    if (column == "node_type") {
        return Cmp(a.node_type, b.node_type);
    }
    return Cmp(a.id, b.id);
}

// The stores' ORDER BY: the keys (default created_at DESC), then id DESC for a total order.
template <typename T, typename Compare>
void SortRows(std::vector<T>& rows, const std::vector<store::SortKey>& sort, Compare compare) {
    std::vector<store::SortKey> keys = sort.empty() ? std::vector<store::SortKey>{{"created_at", true}} : sort;
    keys.push_back({"id", true});
    std::stable_sort(rows.begin(), rows.end(), [&](const T& a, const T& b) {
        for (const auto& key : keys) {
            const int c = compare(a, b, key.column);
            if (c != 0) {
                return key.descending ? c > 0 : c < 0;
            }
        }
        return false;
    });
}

template <typename T>
store::Page<T> Slice(std::vector<T> rows, int page, int size) {
    store::Page<T> out;
    out.total = static_cast<std::int64_t>(rows.size());
    const auto from = static_cast<std::int64_t>(page) * size;
    for (std::int64_t i = from; i < out.total && i < from + size; ++i) {
        out.items.push_back(std::move(rows[static_cast<std::size_t>(i)]));
    }
    return out;
}

bool Visible(const auth::OwnerFilter& owner, const std::optional<domain::Owner>& row_owner) {
    return row_owner ? owner.Admits(row_owner->issuer, row_owner->subject) : owner.Admits("", "");
}

bool Matches(const store::ListQuery& q, const domain::Deployment& d) {
    const std::string status(domain::StatusName(d.status));
    return Visible(q.owner, d.owner) && (!q.user_group || d.user_group == *q.user_group) &&
           std::find(q.excluded_status.begin(), q.excluded_status.end(), status) == q.excluded_status.end() &&
           (q.include_deleted || d.status != DStatus::kDeleteComplete);
}

std::optional<domain::TimePoint> DeadlineOf(const domain::RequestOptions& o, domain::TimePoint from) {
    if (!o.timeout_mins) {
        return std::nullopt;
    }
    return from + std::chrono::minutes(*o.timeout_mins);
}

}  // namespace

void InMemoryDatabase::AppendEvents(const std::string& deployment_id, const std::vector<domain::Event>& events) {
    const auto row = rows_.find(deployment_id);
    if (row == rows_.end()) {
        return;  // as the INSERT ... SELECT FROM deployments of the PostgreSQL store
    }
    for (const auto& e : events) {
        EventRow stored{e, row->second.deployment.owner};
        stored.event.id = next_event_id_++;
        stored.event.deployment_id = deployment_id;
        events_.push_back(std::move(stored));
    }
}

void InMemoryDatabase::InsertJob(const std::string& deployment_id, const workflow::NextJob& next) {
    JobRow row;
    row.job.id = next_job_id_++;
    row.job.deployment_id = deployment_id;
    row.job.kind = next.kind;
    row.job.workflow = next.workflow;
    row.job.payload = next.payload;
    row.run_at = clock_.now() + next.delay;
    jobs_.push_back(std::move(row));
}

void InMemoryDatabase::InsertCallback(const std::string& deployment_id) {
    const auto it = rows_.find(deployment_id);
    if (it == rows_.end() || it->second.deployment.callback.empty()) {
        return;
    }
    CallbackRow row;
    row.delivery.id = next_callback_id_++;
    row.delivery.deployment_id = deployment_id;
    row.delivery.url = it->second.deployment.callback;
    row.delivery.created_at = clock_.now();
    row.next_at = row.delivery.created_at;
    callbacks_.push_back(std::move(row));
}

std::optional<std::pair<workflow::QuotaClaim, double>> InMemoryDatabase::ReserveUpdate(
    const std::string& deployment_id, const std::vector<workflow::QuotaClaim>& changes
) {
    for (const auto& change : changes) {
        const auto it = counters_.find(change.key);
        const double held = it == counters_.end() ? 0 : it->second.reserved + it->second.in_use;
        if (change.amount > 0 && (change.amount > change.limit || held + change.amount > change.limit)) {
            return std::make_pair(change, held);
        }
    }
    SettleUpdate(deployment_id, false);  // an earlier update's leftovers, should one remain
    auto& mine = claims_[deployment_id];
    for (const auto& change : changes) {
        auto row = std::find_if(mine.begin(), mine.end(), [&](const ClaimRow& c) { return c.key == change.key; });
        if (row == mine.end()) {
            if (change.amount <= 0) {
                continue;  // never claimed (admitted before the limit existed): nothing to give back
            }
            mine.push_back({change.key, 0, workflow::AdmissionState::kInUse, clock_.now()});
            row = std::prev(mine.end());
        }
        row->pending = std::max(row->pending + change.amount, -row->amount);
        if (change.amount > 0) {
            auto& counter = counters_[change.key];
            counter.key = change.key;
            counter.reserved += change.amount;
        }
    }
    return std::nullopt;
}

void InMemoryDatabase::SettleUpdate(const std::string& deployment_id, bool completed) {
    const auto it = claims_.find(deployment_id);
    if (it == claims_.end()) {
        return;
    }
    const auto now = clock_.now();
    for (auto& claim : it->second) {
        if (claim.pending == 0) {
            continue;
        }
        auto& counter = counters_[claim.key];
        auto& held = claim.state == workflow::AdmissionState::kInUse ? counter.in_use : counter.reserved;
        if (claim.pending > 0) {
            counter.reserved -= claim.pending;
        }
        if (completed) {
            held += claim.pending;
            AddHistory(claim);
            claim.amount += claim.pending;
            claim.since = now;
        }
        claim.pending = 0;
    }
    std::erase_if(it->second, [](const ClaimRow& c) { return c.amount <= 0; });
}

void InMemoryDatabase::AddHistory(const ClaimRow& claim) {
    if (claim.key.scope != workflow::QuotaScope::kGroup) {
        return;
    }
    const auto now = clock_.now();
    const double hours = std::max(0.0, std::chrono::duration<double, std::ratio<3600>>(now - claim.since).count());
    const auto day = std::chrono::duration_cast<std::chrono::hours>(now.time_since_epoch()).count() / 24;
    if (claim.key.gpu_class.empty()) {
        fair_share_usage_[{claim.key.issuer, claim.key.group, claim.key.resource, day}] += claim.amount * hours;
    } else {
        fair_share_class_usage_[{claim.key.issuer, claim.key.group, claim.key.gpu_class, day}] += claim.amount * hours;
    }
}

bool InMemoryDatabase::HasWorkflowJob(const std::string& deployment_id) const {
    return std::any_of(jobs_.begin(), jobs_.end(), [&](const JobRow& j) {
        return j.job.deployment_id == deployment_id && j.job.workflow;
    });
}

void InMemoryDatabase::DeleteWorkflowJobs(const std::string& deployment_id) {
    std::erase_if(jobs_, [&](const JobRow& j) { return j.job.deployment_id == deployment_id && j.job.workflow; });
}

// ---- deployments ----

Status InMemoryDeploymentStore::Create(const store::NewDeployment& created) {
    const Lock lock(db_.mutex());
    const auto& d = created.deployment;
    if (db_.rows().count(d.id) != 0) {
        return Error::Conflict("duplicate deployment id");
    }
    InMemoryDatabase::Row row;
    row.deployment = d;
    row.deployment.task = domain::Task::kNone;
    row.deadline = DeadlineOf(d.options, d.created_at);
    row.resources = created.resources;
    for (auto& r : row.resources) {
        r.deployment_id = d.id;
        r.updated_at = r.created_at;
    }
    db_.rows().emplace(d.id, std::move(row));
    db_.InsertJob(d.id, workflow::NextJob{workflow::JobKind::kDeploy, Json::object(), {}, true});
    return Ok();
}

Result<std::optional<domain::Deployment>> InMemoryDeploymentStore::Get(const std::string& id) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    return it == db_.rows().end() ? std::nullopt : std::optional(it->second.deployment);
}

Result<store::Page<domain::Deployment>> InMemoryDeploymentStore::List(const store::ListQuery& q) {
    const Lock lock(db_.mutex());
    std::vector<domain::Deployment> rows;
    for (const auto& [id, row] : db_.rows()) {
        if (Matches(q, row.deployment)) {
            rows.push_back(row.deployment);
        }
    }
    SortRows(rows, q.sort, CompareDeployments);
    return Slice(std::move(rows), q.page, q.size);
}

Result<store::Page<domain::Resource>> InMemoryDeploymentStore::ListResources(
    const std::string& deployment_id,
    const std::optional<std::string>& type,
    int page,
    int size,
    const std::vector<store::SortKey>& sort
) {
    const Lock lock(db_.mutex());
    std::vector<domain::Resource> rows;
    if (const auto it = db_.rows().find(deployment_id); it != db_.rows().end()) {
        for (const auto& r : it->second.resources) {
            if (!type || std::find(r.type_chain.begin(), r.type_chain.end(), *type) != r.type_chain.end()) {
                rows.push_back(r);
            }
        }
    }
    SortRows(rows, sort, CompareResources);
    return Slice(std::move(rows), page, size);
}

Result<std::optional<domain::Resource>> InMemoryDeploymentStore::GetResource(
    const std::string& deployment_id, const std::string& resource_id
) {
    const Lock lock(db_.mutex());
    if (const auto it = db_.rows().find(deployment_id); it != db_.rows().end()) {
        for (const auto& r : it->second.resources) {
            if (r.id == resource_id) {
                return std::optional(r);
            }
        }
    }
    return std::optional<domain::Resource>();
}

Status InMemoryDeploymentStore::BeginDelete(const std::string& id, bool force) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    if (it == db_.rows().end()) {
        return NotFound(id);
    }
    auto& d = it->second.deployment;
    if (d.status == DStatus::kDeleteInProgress || d.status == DStatus::kDeleteComplete) {
        return Error::Conflict("Deployment already in " + std::string(domain::StatusName(d.status)) + " state.");
    }
    const auto now = db_.clock().now();
    d.status = DStatus::kDeleteInProgress;
    d.status_reason.clear();
    d.task = domain::Task::kNone;
    d.updated_at = now;
    for (auto& r : it->second.resources) {
        r.state = domain::NodeState::kDeleting;
        r.updated_at = now;
    }
    db_.DeleteWorkflowJobs(id);
    db_.InsertJob(id, workflow::NextJob{workflow::JobKind::kDelete, Json{{"force", force}}, {}, true});
    return Ok();
}

Status InMemoryDeploymentStore::BeginUpdate(const store::UpdateRequest& u) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(u.id);
    if (it == db_.rows().end()) {
        return NotFound(u.id);
    }
    auto& row = it->second;
    auto& d = row.deployment;
    if (!Updatable(d.status)) {
        return Error::Conflict("Cannot update a deployment in " + std::string(domain::StatusName(d.status)) + " state");
    }
    if (db_.HasWorkflowJob(u.id)) {  // checked before any change: the transaction would roll back
        return Error::Conflict("The deployment <" + u.id + "> is busy with another operation; retry later");
    }
    if (const auto refused = db_.ReserveUpdate(u.id, u.admission)) {  // before any change, as the rollback
        return Error::Conflict(workflow::UpdateRefusedMessage(refused->first, refused->second));
    }
    const auto now = db_.clock().now();
    d.status = DStatus::kUpdateInProgress;
    d.status_reason.clear();
    d.task = domain::Task::kNone;
    d.updated_at = now;
    d.template_text = u.template_text;
    d.parameters = u.parameters;
    if (!u.callback.empty()) {
        d.callback = u.callback;
    }
    // The target and the admission wait are the create's (the PostgreSQL update leaves their
    // columns alone).
    const std::string target_provider = d.options.target_provider;
    const std::string target_region = d.options.target_region;
    const auto self_healing = d.options.self_healing;  // an update that does not say keeps it
    const auto max_wait_mins = d.options.max_wait_mins;
    d.options = u.options;
    d.options.self_healing = u.options.self_healing ? u.options.self_healing : self_healing;
    d.options.target_provider = target_provider;
    d.options.target_region = target_region;
    d.options.max_wait_mins = max_wait_mins;
    d.req_cpus = u.req_cpus;
    d.req_mem_mb = u.req_mem_mb;
    d.req_gpus = u.req_gpus;
    d.req_instances = u.req_instances;
    row.deadline = DeadlineOf(u.options, now);
    if (u.expires_at) {
        d.expires_at = u.expires_at;
        row.lease_warnings = 0;
        row.lease_state = workflow::LeaseState::kActive;
    }
    for (auto r : u.added) {
        r.deployment_id = u.id;
        r.updated_at = r.created_at;
        row.resources.push_back(std::move(r));
    }
    for (auto& r : row.resources) {
        const bool removed = std::find(u.removed_resource_ids.begin(), u.removed_resource_ids.end(), r.id) !=
                             u.removed_resource_ids.end();
        if (removed) {
            r.state = domain::NodeState::kDeleting;
            r.updated_at = now;
        } else if (r.state != domain::NodeState::kCreating && r.state != domain::NodeState::kDeleting && r.state != domain::NodeState::kStarted) {
            r.state = domain::NodeState::kConfiguring;
            r.updated_at = now;
        }
    }
    db_.InsertJob(u.id, workflow::NextJob{workflow::JobKind::kUpdate, Json::object(), {}, true});
    if (!u.events.empty()) {
        db_.InsertCallback(u.id);
        db_.AppendEvents(u.id, u.events);
    }
    return Ok();
}

Status InMemoryDeploymentStore::RenewLease(const std::string& id, domain::TimePoint expires_at) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    if (it == db_.rows().end()) {
        return NotFound(id);
    }
    auto& row = it->second;
    auto& d = row.deployment;
    if (d.status == DStatus::kDeleteInProgress || d.status == DStatus::kDeleteComplete) {
        return Error::Conflict(
            "Cannot renew the lease of a deployment in " + std::string(domain::StatusName(d.status)) + " state"
        );
    }
    d.expires_at = expires_at;
    d.updated_at = db_.clock().now();
    row.lease_warnings = 0;
    row.lease_state = workflow::LeaseState::kActive;
    return Ok();
}

Status InMemoryDeploymentStore::ResetToDeleteFailed(const std::string& id) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    if (it == db_.rows().end()) {
        return NotFound(id);
    }
    auto& d = it->second.deployment;
    if (d.status != DStatus::kDeleteInProgress) {
        return Error::Conflict("Cannot reset a deployment in " + std::string(domain::StatusName(d.status)) + " state");
    }
    d.status = DStatus::kDeleteFailed;
    d.status_reason.clear();
    d.task = domain::Task::kNone;
    d.updated_at = db_.clock().now();
    db_.DeleteWorkflowJobs(id);
    return Ok();
}

Result<Json> InMemoryDeploymentStore::GetPlacement(const std::string& id) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    return it == db_.rows().end() ? Json(nullptr) : it->second.decision;
}

Result<std::string> InMemoryDeploymentStore::GetLog(const std::string& id) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    return it == db_.rows().end() ? std::string() : it->second.log;
}

Result<std::vector<domain::Attempt>> InMemoryDeploymentStore::ListAttempts(const std::string& id) {
    const Lock lock(db_.mutex());
    std::vector<domain::Attempt> out;
    const auto it = db_.rows().find(id);
    if (it == db_.rows().end()) {
        return out;
    }
    auto attempts = it->second.attempts;
    std::sort(attempts.begin(), attempts.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
    for (const auto& a : attempts) {
        if (out.size() >= static_cast<std::size_t>(store::kMaxListedAttempts)) {
            break;
        }
        domain::Attempt v;
        v.seq = a.seq;
        v.provider_id = a.provider_id;
        v.provider_name = a.provider_name;
        v.service_id = a.service_id;
        v.started_at = a.started_at;
        if (const auto f = it->second.finished_at.find(a.seq); f != it->second.finished_at.end()) {
            v.finished_at = f->second;
        }
        v.outcome = a.outcome;
        v.reason = a.reason;
        out.push_back(std::move(v));
    }
    return out;
}

Status InMemoryDeploymentStore::BeginAction(
    const std::string& id, const std::string& resource_id, const std::string& action
) {
    const Lock lock(db_.mutex());
    const auto it = db_.rows().find(id);
    if (it == db_.rows().end()) {
        return NotFound(id);
    }
    const auto status = it->second.deployment.status;
    if (!Updatable(status)) {
        return Error::Conflict(
            "Cannot perform actions on deployment in " + std::string(domain::StatusName(status)) + " state"
        );
    }
    auto& rs = it->second.resources;
    const auto r = std::find_if(rs.begin(), rs.end(), [&](const domain::Resource& x) { return x.id == resource_id; });
    if (r == rs.end()) {
        return Error::InvalidArgument("Resource " + resource_id + " not found in deployment " + id);
    }
    const bool start = action == "start";
    if ((start && r->state != domain::NodeState::kStopped) || (!start && r->state != domain::NodeState::kStarted)) {
        return Error::InvalidArgument(
            std::string(start ? "Cannot start" : "Cannot stop") + " node in state " +
            std::string(domain::NodeStateName(r->state))
        );
    }
    if (db_.HasWorkflowJob(id)) {
        return Error::Conflict("The deployment <" + id + "> is busy with another operation; retry later");
    }
    r->state = start ? domain::NodeState::kStarting : domain::NodeState::kStopping;
    r->updated_at = db_.clock().now();
    db_.InsertJob(
        id, workflow::NextJob{workflow::JobKind::kAction, Json{{"resource", resource_id}, {"action", action}}, {}, true}
    );
    return Ok();
}

Result<std::vector<domain::Event>> InMemoryEventStore::After(const store::EventQuery& query) {
    const std::lock_guard lock(db_.mutex());
    const auto limit = static_cast<std::size_t>(std::clamp(query.limit, 1, 1000));
    std::vector<domain::Event> out;
    for (const auto& row : db_.events()) {
        if (out.size() >= limit) {
            break;
        }
        if (row.event.id > query.after_id && Visible(query.owner, row.owner) &&
            (!query.deployment_id || row.event.deployment_id == *query.deployment_id)) {
            out.push_back(row.event);
        }
    }
    return out;
}

Result<std::vector<store::LoggedEvent>> InMemoryEventStore::Range(
    std::int64_t after_id, std::int64_t up_to_id, int limit
) {
    const std::lock_guard lock(db_.mutex());
    const auto most = static_cast<std::size_t>(std::clamp(limit, 1, 10'000));
    std::vector<store::LoggedEvent> out;
    for (const auto& row : db_.events()) {
        if (out.size() >= most) {
            break;
        }
        if (row.event.id > after_id && row.event.id <= up_to_id) {
            const auto owner = row.owner.value_or(domain::Owner{});
            out.push_back(store::LoggedEvent{row.event, owner.issuer, owner.subject});
        }
    }
    return out;
}

Result<std::int64_t> InMemoryEventStore::LatestId() {
    const std::lock_guard lock(db_.mutex());
    return db_.events().empty() ? std::int64_t{0} : db_.events().back().event.id;
}

}  // namespace orch::test
