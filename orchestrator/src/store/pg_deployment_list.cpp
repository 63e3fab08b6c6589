// The deployment list's query and paging (GET /deployments and its resources): the statement
// shapes, the cursor cache's anchors and the far-end read; pg_deployment_store.cpp holds the row
// writes and single-row reads.
#include "orchestrator/store/pg_deployment_store.hpp"
#include "pg_rows.hpp"

namespace orch::store {
namespace {

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
// per list request, and all of what auth added to it (bench/NOTES.md). Other pages in the default
// order are named too, written so that their generic plan is good (AnchoredPageIds); in any
// other order they are sent unnamed, so they are planned for their LIMIT and OFFSET values: the
// generic plan of LIMIT $n, estimated at 10 % of the table, hash-joins the whole table. Only
// these sizes inline, so a client cannot prepare one statement per size.
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
// are empty. `limit` and `offset` are the SQL of the page size and offset (parameters).
std::string TwoEndedPageIds(
    const std::string& where,
    const std::string& order,
    const std::string& reversed_order,
    const std::string& total_sql,
    const std::string& limit,
    const std::string& offset
) {
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
//
// This statement is named and prepared (planning it was 0.6 ms of a deep page's 0.73), so it must
// keep PostgreSQL's generic plan on every connection whatever pages came first: the page size,
// offset and anchor are read through scalar subqueries, which no plan folds, so a custom plan
// costs what the generic one does and plan_cache_mode auto keeps the generic plan from the sixth
// execution on (a shallow page's custom plan would otherwise look cheaper, and the statement
// would be planned on every execution).
std::string AnchoredPageIds(
    const std::string& where,
    const std::string& order,
    const std::string& reversed_order,
    const std::string& total_sql,
    const std::string& marker_sql,
    std::size_t filters
) {
    const auto param = [&](std::size_t k, const char* type) {
        return "(SELECT $" + std::to_string(filters + k) + "::" + type + ")";
    };
    const std::string limit = param(1, "bigint");
    const std::string marker = "(" + marker_sql + ")";
    const std::string anchor_marker = "$" + std::to_string(filters + 3) + "::bigint";
    return TwoEndedPageIds(
               where + " AND " + marker + " <> " + anchor_marker,
               order,
               reversed_order,
               total_sql,
               limit,
               param(2, "bigint")
           ) +
           " UNION ALL (SELECT id FROM deployments WHERE " + where + " AND " + marker + " = " + anchor_marker +
           " AND (created_at, id) <= (" + param(4, "timestamptz") + ", " + param(5, "uuid") + ")" + order + " LIMIT " +
           limit + " OFFSET " + param(6, "bigint") + ")";
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
        ids = TwoEndedPageIds(
            where,
            order,
            reversed_order,
            shape.total_sql,
            "$" + std::to_string(params.size() + 1) + "::bigint",
            "$" + std::to_string(params.size() + 2) + "::bigint"
        );
    }
    if (shape.anchored) {
        // Also the marker and the first row's created_at, the next anchor. The page's rows are
        // fetched by `id = ANY(ARRAY(...))`, which every plan reads as a few rows through the
        // primary key: the generic plan cannot estimate the ids' LIMIT, and would hash-join the
        // whole table to them.
        shape.page_name = "deployments_anchored_" + ShapeKey(q);
        shape.page_sql = std::string("SELECT ") + kListColumns + ", (" + shape.total_sql + "), (" + marker_sql +
                         "), created_at::text FROM deployments WHERE id = ANY(ARRAY(" + ids + "))" + order;
    } else {
        shape.page_sql = std::string("SELECT ") + kListColumns + ", (" + shape.total_sql + ") FROM deployments JOIN (" +
                         ids + ") AS page USING (id)" + order;
    }
    if (!inline_page) {
        params.push_back(std::to_string(q.size));
        params.push_back(std::to_string(static_cast<std::int64_t>(q.page) * q.size));
        shape.prepared = shape.anchored;
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

}  // namespace orch::store
