#include "orchestrator/store/pg_schedule_store.hpp"

#include "pg_rows.hpp"

#include <algorithm>
#include <map>

namespace orch::store {
namespace {

constexpr const char* kScheduleColumns =
    "id::text, (extract(epoch from created_at)*1000000)::bigint, (extract(epoch from updated_at)*1000000)::bigint, "
    "status, file_expression, replication_expression, number_of_replicas, callback, owner_issuer, owner_subject, "
    "template, parameters::text, target_provider, target_region, deployment_expires_after_mins";

constexpr const char* kEventColumns =
    "id::text, schedule_id::text, (extract(epoch from created_at)*1000000)::bigint, "
    "(extract(epoch from updated_at)*1000000)::bigint, scope, name, replication_status, deployment_id::text";

domain::Schedule RowToSchedule(const pqxx::row& row) {
    domain::Schedule s;
    s.id = row[0].as<std::string>();
    s.created_at = FromMicros(row[1].as<std::int64_t>());
    s.updated_at = FromMicros(row[2].as<std::int64_t>());
    s.status = row[3].as<std::string>();
    s.file_expression = row[4].as<std::string>();
    s.replication_expression = row[5].as<std::string>();
    s.number_of_replicas = row[6].as<int>();
    s.callback = TextOr(row[7]);
    if (!TextOr(row[8]).empty()) {
        s.owner = domain::Owner{row[8].as<std::string>(), TextOr(row[9])};
    }
    s.template_text = row[10].as<std::string>();
    s.parameters = JsonOr(row[11], Json::object());
    s.target_provider = TextOr(row[12]);
    s.target_region = TextOr(row[13]);
    if (!row[14].is_null()) {
        s.deployment_expires_after_mins = row[14].as<int>();
    }
    return s;
}

// The sort keys come from the deployments' whitelist; schedules and events have fewer columns,
// and an unknown one must be a 400, not an SQL error.
Result<std::string> OrderBy(const std::vector<SortKey>& sort, const std::vector<std::string>& allowed) {
    std::string order;
    for (const auto& key : sort) {
        if (std::find(allowed.begin(), allowed.end(), key.column) == allowed.end()) {
            return Error::InvalidArgument("No property " + key.column + " found for sorting");
        }
        order += (order.empty() ? "" : ", ") + key.column + (key.descending ? " DESC" : " ASC");
    }
    return (order.empty() ? std::string("created_at DESC") : order) + ", id DESC";  // total order: pages never overlap
}

std::string Window(int page, int size) {
    return " LIMIT " + std::to_string(size) + " OFFSET " + std::to_string(static_cast<std::int64_t>(page) * size);
}

// Deployments of a page of events, in one query.
std::map<std::string, domain::Deployment> DeploymentsById(
    pqxx::read_transaction& tx, const std::vector<std::string>& ids
) {
    std::map<std::string, domain::Deployment> out;
    if (ids.empty()) {
        return out;
    }
    const auto rows = tx.exec_params(
        std::string("SELECT ") + kDeploymentColumns +
            " FROM deployments WHERE id::text = ANY (ARRAY(SELECT "
            "jsonb_array_elements_text($1::jsonb)))",
        Json(ids).dump()
    );
    for (const auto& row : rows) {
        auto d = RowToDeployment(row);
        out.emplace(d.id, std::move(d));
    }
    return out;
}

}  // namespace

Status PgScheduleStore::Create(const domain::Schedule& s) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params(
            "INSERT INTO schedules (id, created_at, updated_at, status, file_expression, replication_expression, "
            "number_of_replicas, callback, owner_issuer, owner_subject, template, parameters, target_provider, "
            "target_region, deployment_expires_after_mins) VALUES ($1::uuid, to_timestamp($2 / 1e6), "
            "to_timestamp($3 / 1e6), $4, $5, $6, $7, NULLIF($8, ''), $9, $10, $11, $12::jsonb, NULLIF($13, ''), "
            "NULLIF($14, ''), $15)",
            s.id,
            ToMicros(s.created_at),
            ToMicros(s.updated_at),
            s.status,
            s.file_expression,
            s.replication_expression,
            s.number_of_replicas,
            s.callback,
            s.owner ? s.owner->issuer : std::string(),
            s.owner ? s.owner->subject : std::string(),
            s.template_text,
            s.parameters.dump(),
            s.target_provider,
            s.target_region,
            s.deployment_expires_after_mins
        );
        tx.commit();
    });
}

Result<std::optional<domain::Schedule>> PgScheduleStore::Get(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> std::optional<domain::Schedule> {
        pqxx::read_transaction tx(conn);
        const auto r =
            tx.exec_params(std::string("SELECT ") + kScheduleColumns + " FROM schedules WHERE id = $1::uuid", id);
        if (r.empty()) {
            return std::nullopt;
        }
        return RowToSchedule(r[0]);
    });
}

Result<Page<domain::Schedule>> PgScheduleStore::List(const ScheduleQuery& q) {
    ORCH_ASSIGN_OR_RETURN(const std::string order, OrderBy(q.sort, {"created_at", "updated_at", "status", "id"}));
    return pool_.Run([&](pqxx::connection& conn) {
        std::vector<std::string> params;
        std::string where = "true";
        AppendOwnerFilter(q.owner, where, params);
        pqxx::read_transaction tx(conn);
        const auto total =
            tx.exec_params("SELECT count(*) FROM schedules WHERE " + where, pqxx::prepare::make_dynamic_params(params));
        const auto rows = tx.exec_params(
            std::string("SELECT ") + kScheduleColumns + " FROM schedules WHERE " + where + " ORDER BY " + order +
                Window(q.page, q.size),
            pqxx::prepare::make_dynamic_params(params)
        );
        Page<domain::Schedule> page;
        page.total = total[0][0].as<std::int64_t>();
        for (const auto& row : rows) {
            page.items.push_back(RowToSchedule(row));
        }
        return page;
    });
}

Result<std::vector<RunningSchedule>> PgScheduleStore::ListRunning(
    const auth::OwnerFilter& owner, const std::string& after_id, int limit
) {
    return pool_.Run([&](pqxx::connection& conn) {
        std::vector<std::string> params{after_id, std::to_string(limit)};
        std::string where = "status = 'RUNNING' AND ($1 = '' OR id > $1::uuid)";
        AppendOwnerFilter(owner, where, params);
        pqxx::read_transaction tx(conn);
        // Keyset paging on the partial index: cost per page does not grow with the offset.
        const auto rows = tx.exec_params(
            "SELECT id::text, file_expression FROM schedules WHERE " + where + " ORDER BY id LIMIT $2::bigint",
            pqxx::prepare::make_dynamic_params(params)
        );
        std::vector<RunningSchedule> out;
        for (const auto& row : rows) {
            out.push_back({row[0].as<std::string>(), row[1].as<std::string>()});
        }
        return out;
    });
}

Result<Page<domain::ScheduleEvent>> PgScheduleStore::ListEvents(
    const std::string& schedule_id, int page, int size, const std::vector<SortKey>& sort
) {
    ORCH_ASSIGN_OR_RETURN(const std::string order, OrderBy(sort, {"created_at", "updated_at", "id"}));
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        const auto total =
            tx.exec_params("SELECT count(*) FROM schedule_events WHERE schedule_id = $1::uuid", schedule_id);
        const auto rows = tx.exec_params(
            std::string("SELECT ") + kEventColumns + " FROM schedule_events WHERE schedule_id = $1::uuid ORDER BY " +
                order + Window(page, size),
            schedule_id
        );
        Page<domain::ScheduleEvent> out;
        out.total = total[0][0].as<std::int64_t>();
        std::vector<std::string> deployment_ids;
        for (const auto& row : rows) {
            domain::ScheduleEvent e;
            e.id = row[0].as<std::string>();
            e.schedule_id = row[1].as<std::string>();
            e.created_at = FromMicros(row[2].as<std::int64_t>());
            e.updated_at = FromMicros(row[3].as<std::int64_t>());
            e.scope = row[4].as<std::string>();
            e.name = row[5].as<std::string>();
            e.replication_status = TextOr(row[6]);
            if (!row[7].is_null()) {
                deployment_ids.push_back(row[7].as<std::string>());
                e.deployment.emplace();
                e.deployment->id = deployment_ids.back();
            }
            out.items.push_back(std::move(e));
        }
        auto deployments = DeploymentsById(tx, deployment_ids);
        for (auto& e : out.items) {
            if (!e.deployment) {
                continue;
            }
            const auto it = deployments.find(e.deployment->id);
            if (it == deployments.end()) {
                e.deployment.reset();  // deleted between the two reads
            } else {
                e.deployment = it->second;
            }
        }
        return out;
    });
}

Result<bool> PgScheduleStore::CreateEvent(const domain::ScheduleEvent& e, const NewDeployment& deployment) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        // The deployment goes first (the event references it); the unique constraint then decides,
        // and losing it rolls the deployment back with the transaction.
        InsertDeployment(tx, deployment);
        const auto inserted = tx.exec_params(
            "INSERT INTO schedule_events (id, schedule_id, deployment_id, created_at, updated_at, scope, name, "
            "replication_status) VALUES ($1::uuid, $2::uuid, $3::uuid, to_timestamp($4 / 1e6), to_timestamp($4 / 1e6), "
            "$5, $6, NULLIF($7, '')) ON CONFLICT (schedule_id, scope, name) DO NOTHING RETURNING id",
            e.id,
            e.schedule_id,
            deployment.deployment.id,
            ToMicros(e.created_at),
            e.scope,
            e.name,
            e.replication_status
        );
        if (inserted.empty()) {
            tx.abort();
            return false;
        }
        tx.commit();
        return true;
    });
}

}  // namespace orch::store
