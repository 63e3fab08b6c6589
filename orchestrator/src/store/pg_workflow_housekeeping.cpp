// The workflow store's housekeeping: queue depth for metrics, purges of old deployments and events.
#include "orchestrator/store/pg_workflow_store.hpp"
#include "pg_rows.hpp"

namespace orch::store {

Result<std::pair<std::int64_t, std::int64_t>> PgWorkflowStore::QueueDepth() {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec1(
            "SELECT count(*) FILTER (WHERE (lease_until IS NULL OR lease_until < now()) AND kind <> 'health'), "
            "count(*) FILTER (WHERE lease_until >= now()) FROM jobs"
        );
        return std::make_pair(r[0].as<std::int64_t>(), r[1].as<std::int64_t>());
    });
}

Result<std::int64_t> PgWorkflowStore::PurgeDeleted(std::chrono::milliseconds retention, int limit) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        // Rows locked first, as every writer does (deployment → jobs → counters); a row another
        // process is purging (or anything holds) is skipped, not waited for.
        const auto r = tx.exec_params(
            "DELETE FROM deployments WHERE id IN (SELECT id FROM deployments d WHERE status = 'DELETE_COMPLETE' "
            "AND updated_at < now() - make_interval(secs => $1 / 1000.0) "
            "AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.deployment_id = d.id) LIMIT $2 FOR UPDATE SKIP LOCKED)",
            static_cast<std::int64_t>(retention.count()),
            limit
        );
        tx.commit();
        return static_cast<std::int64_t>(r.affected_rows());
    });
}

Result<std::int64_t> PgWorkflowStore::PurgeEvents(std::chrono::milliseconds retention, int limit) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        const auto r = tx.exec_params(
            "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < now() - make_interval(secs => $1 / "
            "1000.0) ORDER BY id LIMIT $2)",
            static_cast<std::int64_t>(retention.count()),
            limit
        );
        tx.commit();
        return static_cast<std::int64_t>(r.affected_rows());
    });
}

}  // namespace orch::store
