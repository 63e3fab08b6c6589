#include "orchestrator/store/pg_deployment_store.hpp"

#include "pg_rows.hpp"

#include <algorithm>

namespace orch::store {
namespace {

using DStatus = domain::Status;

// `reversed` flips every key (NULLs included: DESC puts them first, ASC last), for a page read
// from the far end of the order.
std::string Joined(const std::vector<SortKey>& sort, const std::string& fallback, bool reversed = false) {
    const char* desc = reversed ? " ASC" : " DESC";
    const char* asc = reversed ? " DESC" : " ASC";
    std::string order;
    for (const auto& key : sort) {
        order += (order.empty() ? "" : ", ") + key.column + (key.descending ? desc : asc);
    }
    if (order.empty()) {
        order = fallback + desc;
    }
    return order + ", id" + desc;  // a total order, so pages never overlap
}

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

// A list query's SQL depends only on which filters are set, on the sort and (for the usual first
// pages) on the page size: one prepared statement per such shape, named after the shape (ShapeKey),
// so a name always stands for the same SQL on every connection. The filter values, page size and
// offset are parameters.
struct ListShape {
    std::string page_name;            ///< the page statement's name
    std::string page_sql;             ///< the page's list columns, plus the total on every row
    std::string total_name;           ///< the total statement's name
    std::string total_sql;            ///< the total alone, for a page past the end
    std::vector<std::string> params;  ///< the filters, then LIMIT and OFFSET unless inline
    std::size_t filter_count = 0;     ///< how many of `params` are filters (the total's parameters)
    bool prepared = true;             ///< false: sent as an unnamed statement, planned for its values
    bool anchored = false;            ///< may start at a cached anchor (AnchoredPageIds): 4 more params
};

// A first page of a usual size is asked with LIMIT and OFFSET written in the statement, as a
// named prepared statement: its only parameters are the filter values (the caller's issuer with
// auth on), whose generic plan is the plan of any value, so PostgreSQL stops planning it after
// five executions (plan_cache_mode auto). Planning every execution was most of PostgreSQL's CPU
// per list request, and all of what auth added to it (bench/NOTES.md). Every other page is sent
// unnamed, so it is planned for its LIMIT and OFFSET values: the generic plan of LIMIT $n,
// estimated at 10 % of the table, hash-joins the whole table. Only these sizes, so a client
// cannot prepare one statement per size.
bool InlinePage(const ListQuery& q) {
    return q.page == 0 && (q.size == 10 || q.size == 20 || q.size == 50 || q.size == 100);
}

// What the WHERE clause depends on: which filters are set (the owner filter as AppendOwnerFilter
// writes it).
std::string FilterKey(const ListQuery& q) {
    std::string key;
    const auth::OwnerFilter& o = q.owner;
    key += o.matches_nothing() ? 'n' : o.issuer() ? (o.include_unowned() ? 'I' : 'i') : '-';
    key += o.subject() && !o.matches_nothing() ? 's' : '-';
    key += q.user_group ? 'g' : '-';
    key += q.excluded_status.empty() ? '-' : 'x';
    key += q.include_deleted ? 'D' : '-';
    return key;
}

// One letter per sortable deployment column (SortColumnFor's), so that a statement name stays
// within PostgreSQL's 63 bytes (longer names are cut, and two cut names could then collide)
// for the API's up to 16 sort keys; any other column, which only code can ask for, is spelled out.
std::string SortLetter(const std::string& column) {
    static const std::vector<std::pair<std::string, std::string>> kLetters = {
        {"created_at", "c"},
        {"updated_at", "u"},
        {"status", "s"},
        {"task", "t"},
        {"cloud_provider_name", "p"},
        {"user_group", "g"},
        {"id", "i"}};
    for (const auto& [name, letter] : kLetters) {
        if (name == column) {
            return letter;
        }
    }
    return "_" + column + "_";
}

// What the page statement depends on besides the filters: the inline page size and the sort.
std::string ShapeKey(const ListQuery& q) {
    std::string key = FilterKey(q);
    if (InlinePage(q)) {
        key += std::to_string(q.size);
    }
    key += '_';
    for (const auto& sort : q.sort) {
        key.append(SortLetter(sort.column)).push_back(sort.descending ? '-' : '+');
    }
    return key;
}

std::string InlinePageIds(const std::string& where, const std::string& order, int size) {
    return "SELECT id FROM deployments WHERE " + where + order + " LIMIT " + std::to_string(size) + " OFFSET 0";
}

// The ids of any other page, read from whichever end of the order is nearer: an OFFSET walks
// every skipped index entry, so page 9,000 of 10,000 read from the far end skips 9,990 entries
// instead of 90,000. The total (from the counters, which the same snapshot keeps exact for the
// same WHERE) decides the end at run time: each branch sits behind a one-time filter, so only one
// walks the index. The far end's window is clipped for the last, partial page; past the end both
// are empty. LIMIT and OFFSET are the two parameters after the `filters` filter values.
std::string TwoEndedPageIds(
    const std::string& where,
    const std::string& order,
    const std::string& reversed_order,
    const std::string& total_sql,
    std::size_t filters
) {
    const std::string limit = "$" + std::to_string(filters + 1) + "::bigint";
    const std::string offset = "$" + std::to_string(filters + 2) + "::bigint";
    const std::string total = "(" + total_sql + ")";
    // The inner LIMIT stays the page size, so the planner expects a page of rows and joins them
    // by id (a LIMIT it cannot estimate counts as 10 % of the table: a hash join of all of it);
    // the outer one drops what lies before the page when the last page is partial.
    return "(SELECT id FROM deployments WHERE " + where + " AND " + offset + " * 2 < " + total + order + " LIMIT " +
           limit + " OFFSET " + offset + ") UNION ALL (SELECT id FROM (SELECT id FROM deployments WHERE " + where +
           " AND " + offset + " * 2 >= " + total + reversed_order + " LIMIT " + limit + " OFFSET greatest(" + total +
           " - " + offset + " - " + limit + ", 0)) AS tail LIMIT greatest(least(" + limit + ", " + total + " - " +
           offset + "), 0))";
}

// Deep pages may start at a cached anchor only in the default order (created_at, then id, both
// descending): the change marker sees every change of which rows a WHERE matches, but not of the
// other sort keys (updated_at, status, task, ...), and created_at and id never change.
bool Anchorable(const ListQuery& q) {
    return !InlinePage(q) &&
           (q.sort.empty() || (q.sort.size() == 1 && q.sort[0].column == "created_at" && q.sort[0].descending));
}

// TwoEndedPageIds, or, when the scope's change marker (migration 0019) read in this statement's
// snapshot is still the anchor's, the page read on from the anchor (ListCursorCache): a keyset
// seek to the anchor's row, then an OFFSET of at most ListCursorCache::kMaxWalk. The marker's
// test is a one-time filter, so only one of the ways walks the index. Parameters after the
// filters: LIMIT, OFFSET, then the anchor's marker (-1: none), created_at, id and distance.
std::string AnchoredPageIds(
    const std::string& where,
    const std::string& order,
    const std::string& reversed_order,
    const std::string& total_sql,
    const std::string& marker_sql,
    std::size_t filters
) {
    const auto param = [&](std::size_t k) {
        return "$" + std::to_string(filters + k);
    };
    const std::string marker = "(" + marker_sql + ")";
    const std::string anchor_marker = param(3) + "::bigint";
    return TwoEndedPageIds(
               where + " AND " + marker + " <> " + anchor_marker, order, reversed_order, total_sql, filters
           ) +
           " UNION ALL (SELECT id FROM deployments WHERE " + where + " AND " + marker + " = " + anchor_marker +
           " AND (created_at, id) <= (" + param(4) + "::timestamptz, " + param(5) + "::uuid)" + order + " LIMIT " +
           param(1) + "::bigint OFFSET " + param(6) + "::bigint)";
}

ListShape ShapeOf(const ListQuery& q) {
    const bool inline_page = InlinePage(q);
    ListShape shape;
    shape.page_name = "deployments_page_" + ShapeKey(q);
    shape.total_name = "deployments_total_" + FilterKey(q);
    auto& params = shape.params;
    params.reserve(6);
    std::string where = "true";
    AppendOwnerFilter(q.owner, where, params);
    if (q.user_group) {
        params.push_back(*q.user_group);
        where += " AND user_group = $" + std::to_string(params.size());
    }
    if (!q.excluded_status.empty()) {
        params.push_back(Json(q.excluded_status).dump());
        where += " AND status <> ALL (ARRAY(SELECT jsonb_array_elements_text($" + std::to_string(params.size()) +
                 "::jsonb)))";
    }
    if (!q.include_deleted) {
        where += " AND status <> 'DELETE_COMPLETE'";  // a literal: the counters' sum and the index both see it
    }
    shape.filter_count = params.size();
    // Totals come from the counters (migration 0005), never from counting rows.
    shape.total_sql = "SELECT coalesce(sum(n), 0)::bigint FROM deployment_counts WHERE " + where;
    // Deferred join: the OFFSET walks only the ordering index (ids), and just the page's rows
    // are read from the table; a deep page of 100,000 would otherwise fetch every skipped row.
    const std::string order = " ORDER BY " + Joined(q.sort, "created_at");
    const std::string reversed_order = " ORDER BY " + Joined(q.sort, "created_at", true);
    shape.anchored = Anchorable(q);
    // The marker sums the counters' `changes` under the totals' WHERE (migration 0019).
    const std::string marker_sql = "SELECT coalesce(sum(changes), 0)::bigint FROM deployment_counts WHERE " + where;
    std::string ids;
    if (inline_page) {
        ids = InlinePageIds(where, order, q.size);
    } else if (shape.anchored) {
        ids = AnchoredPageIds(where, order, reversed_order, shape.total_sql, marker_sql, params.size());
    } else {
        ids = TwoEndedPageIds(where, order, reversed_order, shape.total_sql, params.size());
    }
    // An anchored page also returns the marker and its first row's created_at, the next anchor.
    const std::string anchor_columns = shape.anchored ? ", (" + marker_sql + "), created_at::text" : "";
    shape.page_sql = std::string("SELECT ") + kListColumns + ", (" + shape.total_sql + ")" + anchor_columns +
                     " FROM deployments JOIN (" + ids + ") AS page USING (id)" + order;
    if (!inline_page) {
        params.push_back(std::to_string(q.size));
        params.push_back(std::to_string(static_cast<std::int64_t>(q.page) * q.size));
        shape.prepared = false;
    }
    return shape;
}

pqxx::result ExecPrepared(
    pqxx::connection& conn,
    pqxx::transaction_base& tx,
    const std::string& name,
    const std::string& sql,
    const std::vector<std::string>& params
) {
    conn.prepare(name, sql);  // libpqxx prepares it on the first execution
    return tx.exec_prepared(name, pqxx::prepare::make_dynamic_params(params));
}

}  // namespace

std::optional<std::string> SortColumnFor(const std::string& property) {
    static const std::vector<std::pair<std::string, std::string>> kColumns = {
        {"createdAt", "created_at"},
        {"creationTime", "created_at"},
        {"updatedAt", "updated_at"},
        {"updateTime", "updated_at"},
        {"status", "status"},
        {"task", "task"},
        {"cloudProviderName", "cloud_provider_name"},
        {"userGroup", "user_group"},
        {"uuid", "id"},
        {"id", "id"},
        {"state", "state"},
        {"toscaNodeName", "node_name"},
        {"toscaNodeType", "node_type"}};
    for (const auto& [name, column] : kColumns) {
        if (name == property) {
            return column;
        }
    }
    return std::nullopt;
}

void InsertDeployment(pqxx::transaction_base& tx, const NewDeployment& created) {
    // One statement, one round trip: the deployment, its resources and its first job. The
    // resources' foreign-key checks run at the end of the statement, when the deployment exists.
    static const std::string kInsert =
        "WITH d AS (INSERT INTO deployments (id, created_at, updated_at, status, task, callback, user_group, "
        "owner_issuer, owner_subject, template, parameters, timeout_mins, provider_timeout_mins, max_providers_retry, "
        "keep_last_attempt, kind, deadline, req_cpus, req_mem_mb, req_gpus, req_instances, target_provider, "
        "target_region, self_healing, expires_at, lease_action, max_wait_mins, per_provider_max_retries) VALUES ("
        "$1::uuid, to_timestamp($2::bigint / 1e6), to_timestamp($2::bigint / 1e6), $3, 'NONE', NULLIF($4, ''), $5, $6, "
        "$7, $8, $9::jsonb, NULLIF($10::int, -1), NULLIF($11::int, -1), NULLIF($12::int, -1), $13::boolean, $14, "
        "CASE WHEN $10::int = -1 THEN NULL ELSE to_timestamp($2::bigint / 1e6) + make_interval(mins => $10::int) END, "
        "$15::float8, $16::bigint, $17::int, $18::int, NULLIF($21, ''), NULLIF($22, ''), $23::boolean, "
        "CASE WHEN $24::bigint = -1 THEN NULL ELSE to_timestamp($24::bigint / 1e6) END, $25, NULLIF($26::int, -1), "
        "NULLIF($27::int, -1)) "
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

namespace {

// The cursor cache's key: the statement's shape and the filter values (each length-prefixed,
// so no two lists of values give one key).
std::string AnchorScope(const ListQuery& q, const ListShape& shape) {
    std::string scope = ShapeKey(q);
    for (std::size_t i = 0; i < shape.filter_count; ++i) {
        scope += '|' + std::to_string(shape.params[i].size()) + ':' + shape.params[i];
    }
    return scope;
}

}  // namespace

Result<Page<domain::Deployment>> PgDeploymentStore::List(const ListQuery& q) {
    ListShape shape = ShapeOf(q);
    const std::int64_t offset = static_cast<std::int64_t>(q.page) * q.size;
    std::string scope;
    if (shape.anchored) {
        scope = AnchorScope(q, shape);
        const std::optional<ListAnchor> anchor = cursors_.Nearest(scope, offset);
        shape.params.push_back(std::to_string(anchor ? anchor->generation : -1));  // -1: no marker is negative
        shape.params.push_back(anchor ? anchor->created_at : "epoch");
        shape.params.push_back(anchor ? anchor->id : "00000000-0000-0000-0000-000000000000");
        shape.params.push_back(std::to_string(anchor ? offset - anchor->offset : 0));
    }
    return pool_.Run([&](pqxx::connection& conn) {
        // One statement, so no BEGIN/COMMIT: the page and its total share the statement's snapshot.
        pqxx::nontransaction tx(conn);
        const auto rows = shape.prepared
                              ? ExecPrepared(conn, tx, shape.page_name, shape.page_sql, shape.params)
                              : tx.exec_params(shape.page_sql, pqxx::prepare::make_dynamic_params(shape.params));
        Page<domain::Deployment> page;
        page.items.reserve(rows.size());
        for (const auto& row : rows) {
            page.items.push_back(RowToListedDeployment(row));
        }
        if (!rows.empty()) {
            page.total = rows[0][kListColumnCount].as<std::int64_t>();
            if (shape.anchored) {
                cursors_.Remember(
                    scope,
                    {.generation = rows[0][kListColumnCount + 1].as<std::int64_t>(),
                     .offset = offset,
                     .created_at = rows[0][kListColumnCount + 2].as<std::string>(),
                     .id = page.items.front().id}
                );
            }
            return page;
        }
        // Past the last page (or nothing at all): the total still has to be told.
        const std::vector<std::string> filters(
            shape.params.begin(), shape.params.begin() + static_cast<std::ptrdiff_t>(shape.filter_count)
        );
        conn.prepare(shape.total_name, shape.total_sql);
        page.total =
            tx.exec_prepared(shape.total_name, pqxx::prepare::make_dynamic_params(filters))[0][0].as<std::int64_t>();
        return page;
    });
}

Result<Page<domain::Resource>> PgDeploymentStore::ListResources(
    const std::string& deployment_id,
    const std::optional<std::string>& type,
    int page,
    int size,
    const std::vector<SortKey>& sort
) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        // type_chain holds the node type and every ancestor, so `type` matches through derivation.
        const std::string where = type ? "deployment_id = $1::uuid AND type_chain @> ARRAY[$2]::text[]"
                                       : "deployment_id = $1::uuid AND $2 = $2";
        const std::string type_param = type.value_or("");
        const auto total = tx.exec_params("SELECT count(*) FROM resources WHERE " + where, deployment_id, type_param);
        const auto rows = tx.exec_params(
            std::string("SELECT ") + kResourceColumns + " FROM resources WHERE " + where + " ORDER BY " +
                Joined(sort, "created_at") + " LIMIT " + std::to_string(size) + " OFFSET " +
                std::to_string(static_cast<std::int64_t>(page) * size),
            deployment_id,
            type_param
        );
        Page<domain::Resource> out;
        out.total = total[0][0].as<std::int64_t>();
        for (const auto& row : rows) {
            out.items.push_back(RowToResource(row));
        }
        return out;
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
