#include "orchestrator/store/pg_deployment_store.hpp"

#include "pg_admission.hpp"
#include "pg_outbox.hpp"
#include "pg_rows.hpp"

#include <algorithm>

namespace orch::store {
namespace {

using DStatus = domain::Status;

Json ResourcesJson(const std::vector<domain::Resource>& resources) {
    Json rows = Json::array();
    for (const auto& r : resources) {
        rows.push_back(
            {{"id", r.id},
             {"created_us", ToMicros(r.created_at)},
             {"state", std::string(domain::NodeStateName(r.state))},
             {"node_type", r.node_type},
             {"node_name", r.node_name},
             {"type_chain", r.type_chain},
             {"instance_index", r.instance_index},
             {"metadata", r.metadata}}
        );
    }
    return rows;
}

// Resource rows per INSERT: one statement per batch keeps a create a handful of round trips while
// no single statement (and its JSON parameter) grows with the instance count.
constexpr std::size_t kResourceBatch = 500;

void InsertResourceBatch(
    pqxx::transaction_base& tx, const std::string& deployment_id, const std::vector<domain::Resource>& resources
) {
    tx.exec_params(
        "INSERT INTO resources (id, deployment_id, created_at, updated_at, state, node_type, node_name, type_chain, "
        "instance_index, metadata) "
        "SELECT (r->>'id')::uuid, $1::uuid, to_timestamp((r->>'created_us')::bigint / 1e6), "
        "to_timestamp((r->>'created_us')::bigint / 1e6), r->>'state', r->>'node_type', r->>'node_name', "
        "ARRAY(SELECT jsonb_array_elements_text(r->'type_chain')), (r->>'instance_index')::int, r->'metadata' "
        "FROM jsonb_array_elements($2::jsonb) AS r",
        deployment_id,
        ResourcesJson(resources).dump()
    );
}

void InsertResources(
    pqxx::transaction_base& tx,
    const std::string& deployment_id,
    const std::vector<domain::Resource>& resources,
    std::size_t from = 0
) {
    for (std::size_t start = from; start < resources.size(); start += kResourceBatch) {
        const auto first = resources.begin() + static_cast<std::ptrdiff_t>(start);
        const auto last =
            resources.begin() + static_cast<std::ptrdiff_t>(std::min(resources.size(), start + kResourceBatch));
        InsertResourceBatch(tx, deployment_id, std::vector<domain::Resource>(first, last));
    }
}

// Re-reads the status to explain why a guarded UPDATE matched no row.
Result<DStatus> CurrentStatus(pqxx::work& tx, const std::string& id) {
    const auto r = tx.exec_params("SELECT status FROM deployments WHERE id = $1::uuid", id);
    if (r.empty()) {
        return Error::NotFound("The deployment <" + id + "> doesn't exist");
    }
    return domain::ParseStatus(r[0][0].as<std::string>()).value_or(DStatus::kUnknown);
}

// Locks the deployment row first (lock order deployment → jobs → counters, docs/api.md, "Lock order") and
// returns its status.
Result<DStatus> LockedStatus(pqxx::work& tx, const std::string& id) {
    const auto r = tx.exec_params("SELECT status FROM deployments WHERE id = $1::uuid FOR NO KEY UPDATE", id);
    if (r.empty()) {
        return Error::NotFound("The deployment <" + id + "> doesn't exist");
    }
    return domain::ParseStatus(r[0][0].as<std::string>()).value_or(DStatus::kUnknown);
}

// Queues the deployment's next workflow step unless one is already queued or running (an action
// racing an update): at most one per deployment (jobs_one_workflow), so the caller answers 409
// instead of tripping the unique index (a 500).
Status QueueWorkflowJob(pqxx::work& tx, const std::string& id, const std::string& kind, const Json& payload) {
    const auto r = tx.exec_params(
        "INSERT INTO jobs (deployment_id, kind, payload) VALUES ($1::uuid, $2, $3::jsonb) "
        "ON CONFLICT (deployment_id) WHERE workflow DO NOTHING RETURNING id",
        id,
        kind,
        WithRequestId(payload).dump()
    );
    if (r.empty()) {
        return Error::Conflict("The deployment <" + id + "> is busy with another operation; retry later");
    }
    return Ok();
}

}  // namespace

void InsertDeployment(pqxx::transaction_base& tx, const NewDeployment& created) {
    // One statement, one round trip: the deployment, its resources and its first job. The
    // resources' foreign-key checks run at the end of the statement, when the deployment exists.
    static const std::string kInsert =
        "WITH d AS (INSERT INTO deployments (id, created_at, updated_at, status, task, callback, user_group, "
        "owner_issuer, owner_subject, template, parameters, timeout_mins, provider_timeout_mins, max_providers_retry, "
        "keep_last_attempt, kind, deadline, req_cpus, req_mem_mb, req_gpus, req_instances, target_provider, "
        "target_region, self_healing, expires_at, lease_action, max_wait_mins, owner_name, owner_email, "
        "per_provider_max_retries) VALUES ("
        "$1::uuid, to_timestamp($2::bigint / 1e6), to_timestamp($2::bigint / 1e6), $3, 'NONE', NULLIF($4, ''), $5, $6, "
        "$7, $8, $9::jsonb, NULLIF($10::int, -1), NULLIF($11::int, -1), NULLIF($12::int, -1), $13::boolean, $14, "
        "CASE WHEN $10::int = -1 THEN NULL ELSE to_timestamp($2::bigint / 1e6) + make_interval(mins => $10::int) END, "
        "$15::float8, $16::bigint, $17::int, $18::int, NULLIF($21, ''), NULLIF($22, ''), $23::boolean, "
        "CASE WHEN $24::bigint = -1 THEN NULL ELSE to_timestamp($24::bigint / 1e6) END, $25, NULLIF($26::int, -1), "
        "NULLIF($27, ''), NULLIF($28, ''), NULLIF($29::int, -1)) "
        "RETURNING id), "
        "r AS (INSERT INTO resources (id, deployment_id, created_at, updated_at, state, node_type, node_name, "
        "type_chain, instance_index, metadata) "
        "SELECT (r->>'id')::uuid, d.id, to_timestamp((r->>'created_us')::bigint / 1e6), "
        "to_timestamp((r->>'created_us')::bigint / 1e6), r->>'state', r->>'node_type', r->>'node_name', "
        "ARRAY(SELECT jsonb_array_elements_text(r->'type_chain')), (r->>'instance_index')::int, r->'metadata' "
        "FROM d, jsonb_array_elements($19::jsonb) AS r) "
        "INSERT INTO jobs (deployment_id, kind, payload) SELECT id, 'deploy', $20::jsonb FROM d";
    const domain::Deployment& d = created.deployment;
    const int no_value = -1;
    const std::vector<domain::Resource> first_batch(
        created.resources.begin(),
        created.resources.begin() + static_cast<std::ptrdiff_t>(std::min(created.resources.size(), kResourceBatch))
    );
    tx.conn().prepare("deployments_insert", kInsert);
    tx.exec_prepared(
        "deployments_insert",
        d.id,
        ToMicros(d.created_at),
        std::string(domain::StatusName(d.status)),
        d.callback,
        d.user_group,
        d.owner ? d.owner->issuer : std::string(),
        d.owner ? d.owner->subject : std::string(),
        d.template_text,
        d.parameters.dump(),
        d.options.timeout_mins.value_or(no_value),
        d.options.provider_timeout_mins.value_or(no_value),
        d.options.max_providers_retry.value_or(no_value),
        d.options.keep_last_attempt,
        d.kind ? std::string(tosca::DeploymentKindName(*d.kind)) : std::string(),
        d.req_cpus,
        d.req_mem_mb,
        d.req_gpus,
        d.req_instances,
        ResourcesJson(first_batch).dump(),
        WithRequestId(Json::object()).dump(),
        d.options.target_provider,
        d.options.target_region,
        d.options.self_healing,
        d.expires_at ? ToMicros(*d.expires_at) : std::int64_t{no_value},
        std::string(domain::LeaseActionName(d.lease_action)),
        d.options.max_wait_mins.value_or(no_value),
        d.owner ? d.owner->name : std::string(),
        d.owner ? d.owner->email : std::string(),
        d.options.per_provider_max_retries.value_or(no_value)
    );
    InsertResources(tx, d.id, created.resources, first_batch.size());
}

Status PgDeploymentStore::Create(const NewDeployment& created) {
    return pool_.Run([&](pqxx::connection& conn) {
        // A single statement is its own transaction: no BEGIN/COMMIT round trips.
        pqxx::nontransaction tx(conn);
        InsertDeployment(tx, created);
    });
}

Result<std::optional<domain::Deployment>> PgDeploymentStore::Get(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> std::optional<domain::Deployment> {
        pqxx::read_transaction tx(conn);
        const auto r =
            tx.exec_params(std::string("SELECT ") + kDeploymentColumns + " FROM deployments WHERE id = $1::uuid", id);
        if (r.empty()) {
            return std::nullopt;
        }
        return RowToDeployment(r[0]);
    });
}

Result<std::optional<domain::Resource>> PgDeploymentStore::GetResource(
    const std::string& deployment_id, const std::string& resource_id
) {
    return pool_.Run([&](pqxx::connection& conn) -> std::optional<domain::Resource> {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params(
            std::string("SELECT ") + kResourceColumns +
                " FROM resources WHERE deployment_id = $1::uuid AND id = $2::uuid",
            deployment_id,
            resource_id
        );
        if (r.empty()) {
            return std::nullopt;
        }
        return RowToResource(r[0]);
    });
}

Status PgDeploymentStore::BeginDelete(const std::string& id, bool force) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto r = tx.exec_params(
            "UPDATE deployments SET status = 'DELETE_IN_PROGRESS', status_reason = NULL, task = 'NONE', "
            "updated_at = now() WHERE id = $1::uuid AND status NOT IN ('DELETE_IN_PROGRESS', 'DELETE_COMPLETE') "
            "RETURNING id",
            id
        );
        if (r.empty()) {
            auto status = CurrentStatus(tx, id);
            if (!status) {
                return status.error();
            }
            return Error::Conflict("Deployment already in " + std::string(domain::StatusName(*status)) + " state.");
        }
        tx.exec_params(
            "UPDATE resources SET state = 'DELETING', updated_at = now() WHERE deployment_id = $1::uuid", id
        );
        // Removing the pending step cancels it; a worker still running it loses its lease fence.
        tx.exec_params("DELETE FROM jobs WHERE deployment_id = $1::uuid AND workflow", id);
        tx.exec_params(
            "INSERT INTO jobs (deployment_id, kind, payload) VALUES ($1::uuid, 'delete', $2::jsonb)",
            id,
            WithRequestId(Json{{"force", force}}).dump()
        );
        tx.commit();
        return Ok();
    });
}

Status PgDeploymentStore::BeginUpdate(const UpdateRequest& u) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const int no_value = -1;
        const auto r = tx.exec_params(
            "UPDATE deployments SET status = 'UPDATE_IN_PROGRESS', status_reason = NULL, task = 'NONE', "
            "updated_at = now(), template = $2, parameters = $3::jsonb, callback = COALESCE(NULLIF($4, ''), callback), "
            "timeout_mins = NULLIF($5, -1), provider_timeout_mins = NULLIF($6, -1), "
            "max_providers_retry = NULLIF($7, -1), keep_last_attempt = $8, req_cpus = $9, req_mem_mb = $10, "
            "req_gpus = $11, req_instances = $12, self_healing = COALESCE($13::boolean, self_healing), "
            "deadline = CASE WHEN $5 = -1 THEN NULL ELSE now() + make_interval(mins => $5) END, "
            "expires_at = CASE WHEN $14 THEN to_timestamp($15::bigint / 1e6) ELSE expires_at END, "
            "lease_warnings = CASE WHEN $14 THEN 0 ELSE lease_warnings END, "
            "lease_state = CASE WHEN $14 THEN 'ACTIVE' ELSE lease_state END "
            "WHERE id = $1::uuid AND status IN ('CREATE_COMPLETE', 'UPDATE_COMPLETE', 'UPDATE_FAILED') RETURNING id",
            u.id,
            u.template_text,
            u.parameters.dump(),
            u.callback,
            u.options.timeout_mins.value_or(no_value),
            u.options.provider_timeout_mins.value_or(no_value),
            u.options.max_providers_retry.value_or(no_value),
            u.options.keep_last_attempt,
            u.req_cpus,
            u.req_mem_mb,
            u.req_gpus,
            u.req_instances,
            u.options.self_healing,
            u.expires_at.has_value(),
            u.expires_at ? ToMicros(*u.expires_at) : std::int64_t{0}
        );
        if (r.empty()) {
            auto status = CurrentStatus(tx, u.id);
            if (!status) {
                return status.error();
            }
            return Error::Conflict(
                "Cannot update a deployment in " + std::string(domain::StatusName(*status)) + " state"
            );
        }
        InsertResources(tx, u.id, u.added);
        if (!u.removed_resource_ids.empty()) {
            tx.exec_params(
                "UPDATE resources SET state = 'DELETING', updated_at = now() WHERE deployment_id = $1::uuid AND "
                "id::text = ANY (ARRAY(SELECT jsonb_array_elements_text($2::jsonb)))",
                u.id,
                Json(u.removed_resource_ids).dump()
            );
        }
        tx.exec_params(
            "UPDATE resources SET state = 'CONFIGURING', updated_at = now() WHERE deployment_id = $1::uuid "
            "AND state NOT IN ('CREATING', 'DELETING', 'STARTED')",
            u.id
        );
        if (auto queued = QueueWorkflowJob(tx, u.id, "update", Json::object()); !queued) {
            return queued;  // rolled back with the transaction
        }
        // After the deployment and job rows, before the deferred status counters (the lock order).
        if (const auto refused = admission::ReserveUpdate(tx, u.id, u.admission)) {
            return Error::Conflict(workflow::UpdateRefusedMessage(refused->claim, refused->held));
        }
        if (!u.events.empty()) {
            InsertCallback(tx, u.id);
            InsertEvents(tx, u.id, u.events);  // last: it takes the event ordering lock
        }
        tx.commit();
        return Ok();
    });
}

Status PgDeploymentStore::ResetToDeleteFailed(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto r = tx.exec_params(
            "UPDATE deployments SET status = 'DELETE_FAILED', status_reason = NULL, task = 'NONE', updated_at = now() "
            "WHERE id = $1::uuid AND status = 'DELETE_IN_PROGRESS' RETURNING id",
            id
        );
        if (r.empty()) {
            auto status = CurrentStatus(tx, id);
            if (!status) {
                return status.error();
            }
            return Error::Conflict(
                "Cannot reset a deployment in " + std::string(domain::StatusName(*status)) + " state"
            );
        }
        tx.exec_params("DELETE FROM jobs WHERE deployment_id = $1::uuid AND workflow", id);
        tx.commit();
        return Ok();
    });
}

Status PgDeploymentStore::RenewLease(const std::string& id, domain::TimePoint expires_at) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        // A new expiry starts a new lease: its warnings are owed again, and a deployment stopped
        // by the old one is not stopped again (it stays as it is until its owner starts it).
        const auto r = tx.exec_params(
            "UPDATE deployments SET expires_at = to_timestamp($2::bigint / 1e6), lease_warnings = 0, "
            "lease_state = 'ACTIVE', updated_at = now() WHERE id = $1::uuid "
            "AND status NOT IN ('DELETE_IN_PROGRESS', 'DELETE_COMPLETE') RETURNING id",
            id,
            ToMicros(expires_at)
        );
        if (r.empty()) {
            auto status = CurrentStatus(tx, id);
            if (!status) {
                return status.error();
            }
            return Error::Conflict(
                "Cannot renew the lease of a deployment in " + std::string(domain::StatusName(*status)) + " state"
            );
        }
        tx.commit();
        return Ok();
    });
}

Result<std::string> PgDeploymentStore::GetLog(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> std::string {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params("SELECT log FROM deployments WHERE id = $1::uuid", id);
        return r.empty() ? std::string() : TextOr(r[0][0]);
    });
}

Result<std::vector<domain::Attempt>> PgDeploymentStore::ListAttempts(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> std::vector<domain::Attempt> {
        pqxx::read_transaction tx(conn);
        // The primary key (deployment_id, seq) serves both the filter and the order.
        const auto rows = tx.exec_params(
            "SELECT seq, provider_id, provider_name, service_id, (extract(epoch from started_at)*1000000)::bigint, "
            "(extract(epoch from finished_at)*1000000)::bigint, outcome, reason FROM attempts "
            "WHERE deployment_id = $1::uuid ORDER BY seq LIMIT $2",
            id,
            kMaxListedAttempts
        );
        std::vector<domain::Attempt> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            domain::Attempt a;
            a.seq = row[0].as<int>();
            a.provider_id = row[1].as<std::string>();
            a.provider_name = row[2].as<std::string>();
            a.service_id = row[3].as<std::string>();
            a.started_at = FromMicros(row[4].as<std::int64_t>());
            if (!row[5].is_null()) {
                a.finished_at = FromMicros(row[5].as<std::int64_t>());
            }
            a.outcome = domain::ParseAttemptOutcome(row[6].as<std::string>());
            a.reason = TextOr(row[7]);
            out.push_back(std::move(a));
        }
        return out;
    });
}

Result<Json> PgDeploymentStore::GetPlacement(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> Json {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params("SELECT placement->'decision' FROM deployments WHERE id = $1::uuid", id);
        return r.empty() ? Json(nullptr) : JsonOr(r[0][0], nullptr);
    });
}

Status PgDeploymentStore::BeginAction(
    const std::string& id, const std::string& resource_id, const std::string& action
) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        auto status = LockedStatus(tx, id);
        if (!status) {
            return status.error();
        }
        if (*status != DStatus::kCreateComplete && *status != DStatus::kUpdateComplete &&
            *status != DStatus::kUpdateFailed) {
            return Error::Conflict(
                "Cannot perform actions on deployment in " + std::string(domain::StatusName(*status)) + " state"
            );
        }
        const auto res = tx.exec_params(
            "SELECT state FROM resources WHERE deployment_id = $1::uuid AND id::text = $2 FOR UPDATE", id, resource_id
        );
        if (res.empty()) {
            return Error::InvalidArgument("Resource " + resource_id + " not found in deployment " + id);
        }
        const std::string state = res[0][0].as<std::string>();
        const bool start = action == "start";
        if ((start && state != "STOPPED") || (!start && state != "STARTED")) {
            return Error::InvalidArgument(
                std::string(start ? "Cannot start" : "Cannot stop") + " node in state " + state
            );
        }
        tx.exec_params(
            "UPDATE resources SET state = $3, updated_at = now() WHERE deployment_id = $1::uuid AND id::text = $2",
            id,
            resource_id,
            std::string(start ? "STARTING" : "STOPPING")
        );
        if (auto queued = QueueWorkflowJob(tx, id, "action", Json{{"resource", resource_id}, {"action", action}});
            !queued) {
            return queued;
        }
        tx.commit();
        return Ok();
    });
}

}  // namespace orch::store
