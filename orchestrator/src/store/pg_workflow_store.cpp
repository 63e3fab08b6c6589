#include "orchestrator/store/pg_workflow_store.hpp"

#include "common/uuid.hpp"
#include "orchestrator/workflow/admission_queue.hpp"
#include "orchestrator/workflow/lease_lost.hpp"
#include "pg_admission.hpp"
#include "pg_outbox.hpp"
#include "pg_rows.hpp"

namespace orch::store {
namespace {

using workflow::Job;
using workflow::Transition;

using workflow::kLeaseLost;

// The fence: the job must still exist and be leased to us; locks it for the transaction.
bool HoldsLease(pqxx::work& tx, const Job& job, const std::string& owner) {
    return !tx.exec_params("SELECT 1 FROM jobs WHERE id = $1 AND lease_owner = $2 FOR UPDATE", job.id, owner).empty();
}

// The admission queue's row of a job that carries a waiting record (migration 0021): the list
// reads it by index instead of scanning the jobs' payloads. Deleting the job deletes it (FK).
void IndexWaiting(pqxx::work& tx, std::int64_t job_id, const std::string& deployment_id, const Json& record) {
    tx.exec_params(
        "INSERT INTO admission_waiting (job_id, deployment_id, owner_issuer, since, record) "
        "SELECT $1, id, owner_issuer, created_at, $3::jsonb FROM deployments WHERE id = $2::uuid "
        "ON CONFLICT (job_id) DO UPDATE SET record = EXCLUDED.record",
        job_id,
        deployment_id,
        record.dump()
    );
}

// Gives a leased job back (Retry, and Queue when admission does not fit): it runs again after
// `delay` with `reason` as its last error; `waiting` (the admission queue's record, null if none)
// joins its payload. False when `owner` no longer holds the lease.
bool ReleaseJob(
    pqxx::work& tx,
    const Job& job,
    const std::string& owner,
    std::chrono::milliseconds delay,
    const std::string& reason,
    const Json& waiting = nullptr
) {
    const auto released = tx.exec_params(
        "UPDATE jobs SET lease_owner = NULL, lease_until = NULL, last_error = $3, "
        "run_at = now() + make_interval(secs => $4 / 1000.0), "
        "payload = CASE WHEN $5::jsonb = 'null'::jsonb THEN payload "
        "ELSE payload || jsonb_build_object($6::text, $5::jsonb) END "
        "WHERE id = $1 AND lease_owner = $2 RETURNING id",
        job.id,
        owner,
        reason.substr(0, 2000),
        static_cast<std::int64_t>(delay.count()),
        waiting.dump(),
        std::string(workflow::kWaitingMember)
    );
    if (released.empty()) {
        return false;
    }
    if (!waiting.is_null()) {
        IndexWaiting(tx, job.id, job.deployment_id, waiting);
    }
    return true;
}

// Lock order deployment → jobs → counters (docs/api.md, "Lock order"), the order of the request handlers,
// which update the deployment row before they cancel its jobs. NO KEY UPDATE is the lock an
// UPDATE of the row takes anyway, and it lets foreign-key checks (resources, attempts) through.
void LockDeployment(pqxx::work& tx, const std::string& deployment_id) {
    tx.exec_params("SELECT 1 FROM deployments WHERE id = $1::uuid FOR NO KEY UPDATE", deployment_id);
}

void InsertJob(pqxx::work& tx, const std::string& deployment_id, const workflow::NextJob& next) {
    const auto row = tx.exec_params1(
        "INSERT INTO jobs (deployment_id, kind, workflow, payload, run_at) "
        "VALUES ($1::uuid, $2, $3, $4::jsonb, now() + make_interval(secs => $5 / 1000.0)) RETURNING id",
        deployment_id,
        std::string(workflow::JobKindName(next.kind)),
        next.workflow,
        WithRequestId(next.payload).dump(),
        static_cast<std::int64_t>(next.delay.count())
    );
    const auto waiting = next.payload.find(workflow::kWaitingMember);
    if (waiting != next.payload.end() && !waiting->is_null()) {
        IndexWaiting(tx, row[0].as<std::int64_t>(), deployment_id, *waiting);
    }
}

}  // namespace

// The outbox row of a state change: the URL as the deployment has it now (none: no row).
void InsertCallback(pqxx::work& tx, const std::string& deployment_id) {
    tx.exec_params(
        "INSERT INTO callback_deliveries (deployment_id, url) SELECT id, callback FROM deployments "
        "WHERE id = $1::uuid AND coalesce(callback, '') <> ''",
        deployment_id
    );
}

// The last statement before COMMIT: the lock (held until commit) makes ids increase in commit
// order, so a stream reading "after id n" never misses an event that commits late with a smaller
// id. Owner columns come from the deployment row, for the list's OwnerFilter.
void InsertEvents(pqxx::work& tx, const std::string& deployment_id, const std::vector<domain::Event>& events) {
    if (events.empty()) {
        return;
    }
    tx.exec_params("SELECT pg_advisory_xact_lock($1)", kEventsLockKey);
    for (const auto& e : events) {
        tx.exec_params(
            "INSERT INTO events (deployment_id, owner_issuer, owner_subject, user_group, type, at, data) "
            "SELECT id, owner_issuer, owner_subject, user_group, $2, to_timestamp($3 / 1000000.0), $4::jsonb "
            "FROM deployments WHERE id = $1::uuid",
            deployment_id,
            std::string(domain::EventTypeName(e.type)),
            ToMicros(e.time),
            e.data.dump(-1, ' ', false, Json::error_handler_t::replace)
        );
    }
}

namespace {

// One UPDATE with only the columns the transition sets; parameters are numbered as appended.
void ApplyDeployment(pqxx::work& tx, const std::string& id, const Transition& t) {
    std::vector<std::string> params{id};
    std::string set = "updated_at = now()";
    const auto add = [&](const std::string& column, const std::string& value, const std::string& cast = "") {
        params.push_back(value);
        set += ", " + column + " = $" + std::to_string(params.size()) + cast;
    };
    const auto add_nullable = [&](const std::string& column, const std::string& value, const std::string& cast = "") {
        params.push_back(value);
        set += ", " + column + " = NULLIF($" + std::to_string(params.size()) + ", '')" + cast;
    };
    if (t.status) {
        add("status", std::string(domain::StatusName(*t.status)));
    }
    if (t.status_reason) {
        add_nullable("status_reason", *t.status_reason);
    }
    if (t.task) {
        add("task", std::string(domain::TaskName(*t.task)));
    }
    if (t.physical_id) {
        add_nullable("physical_id", *t.physical_id);
    }
    if (t.provider_name) {
        add_nullable("cloud_provider_name", *t.provider_name);
    }
    if (t.provider_endpoint) {
        add_nullable(
            "cloud_provider_endpoint", t.provider_endpoint->is_null() ? "" : t.provider_endpoint->dump(), "::jsonb"
        );
    }
    if (t.outputs) {
        add("outputs", t.outputs->dump(), "::jsonb");
    }
    if (t.placement) {
        params.push_back(t.placement->decision_json);
        params.push_back(t.placement->candidates.dump());
        set += ", placement = jsonb_build_object('decision', $" + std::to_string(params.size() - 1) +
               "::jsonb, 'candidates', $" + std::to_string(params.size()) + "::jsonb)";
    }
    if (t.candidate_index) {
        add("candidate_index", std::to_string(*t.candidate_index), "::int");
    }
    if (t.handle) {
        add_nullable("handle", t.handle->is_null() ? "" : t.handle->dump(), "::jsonb");
    }
    if (!t.append_log.empty()) {
        // Only the end is kept: a deployment polled for days cannot grow its row without bound.
        params.push_back(t.append_log);
        set += ", log = right(COALESCE(log, '') || $" + std::to_string(params.size()) + ", " +
               std::to_string(workflow::kMaxLogChars) + ")";
    }
    if (t.deadline) {
        params.push_back(std::to_string(ToMicros(*t.deadline)));
        set += ", deadline = to_timestamp($" + std::to_string(params.size()) + "::bigint / 1e6)";
    }
    tx.exec_params(
        "UPDATE deployments SET " + set + " WHERE id = $1::uuid", pqxx::prepare::make_dynamic_params(params)
    );
}

// An instance the site reports beyond the node's rows (a Deployment's replicas, a release's pods)
// becomes a resource of that node, typed as its first instance; the in-memory store does the same.
void AddReportedInstance(pqxx::work& tx, const std::string& id, const workflow::ResourceChange& c) {
    tx.exec_params(
        "INSERT INTO resources (id, deployment_id, created_at, updated_at, state, node_type, node_name, type_chain, "
        "instance_index, physical_id, metadata) "
        "SELECT $4::uuid, deployment_id, now(), now(), COALESCE(NULLIF($5, ''), 'INITIAL'), node_type, node_name, "
        "type_chain, $3::int, NULLIF($6, ''), CASE WHEN $7 = '' THEN '{}'::jsonb ELSE $7::jsonb END "
        "FROM resources WHERE deployment_id = $1::uuid AND node_name = $2 AND instance_index = 0 "
        "AND state <> 'DELETED' LIMIT 1",
        id,
        c.node,
        c.index,
        SequentialUuid(),
        c.state ? std::string(domain::NodeStateName(*c.state)) : std::string(),
        c.physical_id.value_or(""),
        c.metadata ? c.metadata->dump() : std::string()
    );
}

void ApplyResources(pqxx::work& tx, const std::string& id, const Transition& t) {
    // Removed instances go first, so a state applied to "every resource" does not revive them.
    if (t.drop_deleting_resources) {
        tx.exec_params("DELETE FROM resources WHERE deployment_id = $1::uuid AND state = 'DELETING'", id);
    }
    if (t.resources_state) {
        tx.exec_params(
            "UPDATE resources SET state = $2, updated_at = now() WHERE deployment_id = $1::uuid AND "
            "state <> 'DELETED'",
            id,
            std::string(domain::NodeStateName(*t.resources_state))
        );
    }
    for (const auto& c : t.resource_changes) {
        const std::string where = c.id.empty()
                                      ? "deployment_id = $1::uuid AND node_name = $2 AND instance_index = $3::int"
                                      : "deployment_id = $1::uuid AND id::text = $2 AND $3::int = $3::int";
        const std::string key = c.id.empty() ? c.node : c.id;
        const pqxx::result updated = tx.exec_params(
            "UPDATE resources SET updated_at = now(), state = COALESCE(NULLIF($4, ''), state), "
            "physical_id = COALESCE(NULLIF($5, ''), physical_id), "
            "metadata = CASE WHEN $6 = '' THEN metadata ELSE $6::jsonb END WHERE " +
                where,
            id,
            key,
            c.index,
            c.state ? std::string(domain::NodeStateName(*c.state)) : std::string(),
            c.physical_id.value_or(""),
            c.metadata ? c.metadata->dump() : std::string()
        );
        if (c.id.empty() && c.index > 0 && updated.affected_rows() == 0) {
            AddReportedInstance(tx, id, c);
        }
    }
}

void ApplyAttempt(pqxx::work& tx, const std::string& id, const workflow::Attempt& a) {
    tx.exec_params(
        "UPDATE attempts SET outcome = $3, reason = NULLIF($4, ''), cause = $7, "
        "finished_at = CASE WHEN $3 = 'RUNNING' THEN NULL ELSE COALESCE(finished_at, now()) END, "
        "handle = CASE WHEN $5 = '' THEN handle ELSE $5::jsonb END, cleaned = cleaned OR $6 "
        "WHERE deployment_id = $1::uuid AND seq = $2",
        id,
        a.seq,
        std::string(domain::AttemptOutcomeName(a.outcome)),
        a.reason,
        a.handle.is_null() ? std::string() : a.handle.dump(),
        a.cleaned,
        std::string(domain::FailureCauseName(a.cause))
    );
}

}  // namespace

Result<std::vector<Job>> PgWorkflowStore::Claim(const std::string& owner, int max, std::chrono::milliseconds lease) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        // SKIP LOCKED: concurrent claimers (threads or replicas) never wait on, or take, the same row.
        const auto rows = tx.exec_params(
            "UPDATE jobs SET lease_owner = $1, lease_until = now() + make_interval(secs => $2 / 1000.0), "
            "attempts = attempts + 1 WHERE id IN (SELECT id FROM jobs WHERE run_at <= now() AND "
            "(lease_until IS NULL OR lease_until < now()) ORDER BY run_at LIMIT $3 FOR UPDATE SKIP LOCKED) "
            "RETURNING id, deployment_id::text, kind, workflow, payload::text, attempts",
            owner,
            static_cast<std::int64_t>(lease.count()),
            max
        );
        tx.commit();
        std::vector<Job> jobs;
        for (const auto& row : rows) {
            Job job;
            job.id = row[0].as<std::int64_t>();
            job.deployment_id = row[1].as<std::string>();
            job.kind = workflow::ParseJobKind(row[2].as<std::string>());
            job.workflow = row[3].as<bool>();
            job.payload = JsonOr(row[4], Json::object());
            job.attempts = row[5].as<int>();
            job.lease_owner = owner;
            jobs.push_back(std::move(job));
        }
        return jobs;
    });
}

Result<std::vector<std::int64_t>> PgWorkflowStore::Heartbeat(
    const std::string& owner, const std::vector<std::int64_t>& ids, std::chrono::milliseconds lease
) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        const auto rows = tx.exec_params(
            "UPDATE jobs SET lease_until = now() + make_interval(secs => $2 / 1000.0) WHERE id IN (SELECT id FROM jobs "
            "WHERE lease_owner = $1 AND id = ANY (ARRAY(SELECT jsonb_array_elements_text($3::jsonb)::bigint)) "
            "ORDER BY id FOR UPDATE) RETURNING id",
            owner,
            static_cast<std::int64_t>(lease.count()),
            Json(ids).dump()
        );
        tx.commit();
        std::vector<std::int64_t> lost = ids;
        for (const auto& row : rows) {
            lost.erase(std::remove(lost.begin(), lost.end(), row[0].as<std::int64_t>()), lost.end());
        }
        return lost;
    });
}

Result<std::optional<workflow::WorkflowState>> PgWorkflowStore::Load(const std::string& deployment_id) {
    return pool_.Run([&](pqxx::connection& conn) -> std::optional<workflow::WorkflowState> {
        pqxx::read_transaction tx(conn);
        const auto d = tx.exec_params(
            std::string("SELECT ") + kDeploymentColumns +
                ", (placement->'candidates')::text, candidate_index, handle::text, "
                "(extract(epoch from deadline)*1000000)::bigint FROM deployments WHERE id = $1::uuid",
            deployment_id
        );
        if (d.empty()) {
            return std::nullopt;
        }
        workflow::WorkflowState s;
        s.deployment = RowToDeployment(d[0]);
        const auto base = static_cast<pqxx::row::size_type>(kDeploymentColumnCount);
        s.candidates = JsonOr(d[0][base], nullptr);
        s.candidate_index = d[0][base + 1].as<int>();
        s.handle = JsonOr(d[0][base + 2], nullptr);
        if (!d[0][base + 3].is_null()) {
            s.deadline = FromMicros(d[0][base + 3].as<std::int64_t>());
        }
        const auto attempts = tx.exec_params(
            "SELECT seq, provider_id, provider_name, service_id, target::text, "
            "(extract(epoch from started_at)*1000000)::bigint, outcome, reason, handle::text, cleaned, cause "
            "FROM attempts WHERE deployment_id = $1::uuid ORDER BY seq",
            deployment_id
        );
        for (const auto& row : attempts) {
            workflow::Attempt a;
            a.seq = row[0].as<int>();
            a.provider_id = row[1].as<std::string>();
            a.provider_name = row[2].as<std::string>();
            a.service_id = row[3].as<std::string>();
            a.target = JsonOr(row[4], Json::object());
            a.started_at = FromMicros(row[5].as<std::int64_t>());
            a.outcome = domain::ParseAttemptOutcome(row[6].as<std::string>());
            a.reason = TextOr(row[7]);
            a.handle = JsonOr(row[8], nullptr);
            a.cleaned = row[9].as<bool>();
            a.cause = domain::ParseFailureCause(row[10].as<std::string>());
            s.attempts.push_back(std::move(a));
        }
        const auto resources = tx.exec_params(
            std::string("SELECT ") + kResourceColumns +
                " FROM resources WHERE deployment_id = $1::uuid ORDER BY created_at, id",
            deployment_id
        );
        for (const auto& row : resources) {
            s.resources.push_back(RowToResource(row));
        }
        return s;
    });
}

Status PgWorkflowStore::StartAttempt(const Job& job, const std::string& owner, const workflow::Attempt& a) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        if (!HoldsLease(tx, job, owner)) {
            return kLeaseLost;
        }
        tx.exec_params(
            "INSERT INTO attempts (deployment_id, seq, provider_id, provider_name, service_id, target) "
            "VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (deployment_id, seq) DO NOTHING",
            job.deployment_id,
            a.seq,
            a.provider_id,
            a.provider_name,
            a.service_id,
            a.target.dump()
        );
        tx.commit();
        return Ok();
    });
}

namespace {

// What a commit's new status does to the deployment's quota claims; after the job rows, before
// the deferred status counters: the lock order deployment → jobs → quota counters → counters.
void SettleAdmission(pqxx::work& tx, const std::string& deployment_id, const Transition& t) {
    if (!t.status) {
        return;
    }
    if (*t.status == domain::Status::kCreateComplete) {
        admission::Promote(tx, deployment_id);
    } else if (*t.status == domain::Status::kCreateFailed || *t.status == domain::Status::kDeleteComplete) {
        admission::Release(tx, deployment_id);
    } else if (*t.status == domain::Status::kUpdateComplete || *t.status == domain::Status::kUpdateFailed) {
        admission::SettleUpdate(tx, deployment_id, *t.status == domain::Status::kUpdateComplete);
    }
}

// The admission did not fit: only the queued reason is written and the job waits its delay
// (its lease given back by ReleaseJob, as Retry's), the deployment staying CREATE_IN_PROGRESS.
Status Queue(pqxx::connection& conn, const Job& job, const std::string& owner, const workflow::Admission& admit) {
    pqxx::work tx(conn);
    LockDeployment(tx, job.deployment_id);
    if (!HoldsLease(tx, job, owner)) {
        return kLeaseLost;
    }
    // The log line of a wait that starts now (none on its retries), kept to its end as ever.
    tx.exec_params(
        "UPDATE deployments SET status_reason = $2, updated_at = now(), "
        "log = CASE WHEN $3::text = '' THEN log ELSE right(COALESCE(log, '') || $3::text, $4::int) END WHERE id = "
        "$1::uuid",
        job.deployment_id,
        admit.queued_reason,
        admit.queued_log,
        static_cast<std::int64_t>(workflow::kMaxLogChars)
    );
    InsertEvents(tx, job.deployment_id, admit.queued_events);
    ReleaseJob(tx, job, owner, admit.retry_delay, admit.queued_reason, admit.waiting);
    tx.commit();
    return Ok();
}

// Applies the transition and completes the job; the caller holds the deployment row and the lease.
Status ApplyCommit(pqxx::work& tx, const Job& job, const Transition& t) {
    ApplyDeployment(tx, job.deployment_id, t);
    ApplyResources(tx, job.deployment_id, t);
    if (t.finish_attempt) {
        ApplyAttempt(tx, job.deployment_id, *t.finish_attempt);
    }
    tx.exec_params("DELETE FROM jobs WHERE id = $1", job.id);
    if (t.next) {
        InsertJob(tx, job.deployment_id, *t.next);
    }
    for (const auto& side : t.side_jobs) {
        InsertJob(tx, job.deployment_id, side);
    }
    if (t.callback) {
        InsertCallback(tx, job.deployment_id);
    }
    SettleAdmission(tx, job.deployment_id, t);
    InsertEvents(tx, job.deployment_id, t.events);
    tx.commit();
    return Ok();
}

}  // namespace

Status PgWorkflowStore::Commit(const Job& job, const std::string& owner, const Transition& t) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        std::optional<pqxx::work> tx(std::in_place, conn);
        LockDeployment(*tx, job.deployment_id);
        if (!HoldsLease(*tx, job, owner)) {
            return kLeaseLost;
        }
        if (t.admit && !admission::Reserve(*tx, job.deployment_id, t.admit->claims, t.admit->services_only)) {
            tx->abort();
            tx.reset();
            return Queue(conn, job, owner, *t.admit);
        }
        return ApplyCommit(*tx, job, t);
    });
}

Result<std::vector<workflow::QuotaCounter>> PgWorkflowStore::QuotaCounters(
    const std::string& issuer, const std::vector<std::string>& groups
) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<workflow::QuotaCounter>> {
        pqxx::read_transaction tx(conn);
        return admission::Counters(tx, issuer, groups);
    });
}

Result<std::map<std::string, workflow::ShareVector, std::less<>>> PgWorkflowStore::FairShareUsage(
    const std::string& issuer, std::chrono::milliseconds half_life
) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::map<std::string, workflow::ShareVector, std::less<>>> {
        pqxx::read_transaction tx(conn);
        return admission::FairShareUsage(tx, issuer, half_life);
    });
}

Result<std::map<std::string, std::map<std::string, double>, std::less<>>> PgWorkflowStore::FairShareClassUsage(
    const std::string& issuer, std::chrono::milliseconds half_life
) {
    using Usage = std::map<std::string, std::map<std::string, double>, std::less<>>;
    return pool_.Run([&](pqxx::connection& conn) -> Result<Usage> {
        pqxx::read_transaction tx(conn);
        return admission::FairShareClassUsage(tx, issuer, half_life);
    });
}

Result<std::vector<workflow::WaitingRequest>> PgWorkflowStore::WaitingRequests(const std::string& issuer, int limit) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<workflow::WaitingRequest>> {
        pqxx::read_transaction tx(conn);
        const auto rows = tx.exec_params(
            // The index's order; the status check drops a row whose deployment moved on in a
            // transaction that kept the job (none does today: a defence, one key lookup each).
            "SELECT w.deployment_id::text, w.record::text FROM admission_waiting w "
            "JOIN deployments d ON d.id = w.deployment_id "
            "WHERE w.owner_issuer = $1 AND d.status = 'CREATE_IN_PROGRESS' "
            "ORDER BY w.since, w.deployment_id LIMIT $2",
            issuer,
            limit
        );
        std::vector<workflow::WaitingRequest> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            auto record = Json::parse(row[1].as<std::string>(), nullptr, false);
            if (auto w = workflow::WaitingFromJson(row[0].as<std::string>(), record)) {
                out.push_back(std::move(*w));
            }
        }
        return out;
    });
}

Status PgWorkflowStore::Retry(
    const Job& job, const std::string& owner, std::chrono::milliseconds delay, const std::string& error
) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const bool released = ReleaseJob(tx, job, owner, delay, error);
        tx.commit();
        return released ? Ok() : Status(kLeaseLost);
    });
}

Result<bool> PgWorkflowStore::PollNow(const std::string& deployment_id) {
    if (!LooksLikeUuid(deployment_id)) {  // a site's name for something that is not ours
        return false;
    }
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        // Only a waiting poll: a leased one is running now, and any other kind keeps its time.
        const auto r = tx.exec_params(
            "UPDATE jobs SET run_at = now() WHERE deployment_id = $1::uuid AND kind IN ('poll', 'update_poll') "
            "AND run_at > now() AND (lease_until IS NULL OR lease_until < now())",
            deployment_id
        );
        tx.commit();
        return r.affected_rows() > 0;
    });
}

}  // namespace orch::store
