// The workflow store's callback outbox: deliveries claimed under a lease, finished or retried.
#include "orchestrator/store/pg_workflow_store.hpp"
#include "orchestrator/workflow/lease_lost.hpp"
#include "pg_rows.hpp"

namespace orch::store {
namespace {

// A delivery whose claim lapsed (another claimer holds it now), as the job fence says it.
using workflow::kLeaseLost;

}  // namespace

Result<std::vector<workflow::CallbackDelivery>> PgWorkflowStore::ClaimCallbacks(
    const std::string& owner, int max, std::chrono::milliseconds lease
) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        // As jobs are claimed: replicas never wait on, or take, the same row.
        const auto rows = tx.exec_params(
            "UPDATE callback_deliveries SET lease_owner = $1, lease_until = now() + make_interval(secs => $2 / "
            "1000.0), attempts = attempts + 1 WHERE id IN (SELECT id FROM callback_deliveries WHERE next_at <= now() "
            "AND (lease_until IS NULL OR lease_until < now()) ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED) "
            "RETURNING id, deployment_id::text, url, attempts, (extract(epoch FROM created_at) * 1000000)::bigint",
            owner,
            static_cast<std::int64_t>(lease.count()),
            max
        );
        tx.commit();
        std::vector<workflow::CallbackDelivery> out;
        for (const auto& row : rows) {
            workflow::CallbackDelivery d;
            d.id = row[0].as<std::int64_t>();
            d.deployment_id = row[1].as<std::string>();
            d.url = row[2].as<std::string>();
            d.attempts = row[3].as<int>();
            d.created_at = FromMicros(row[4].as<std::int64_t>());
            d.lease_owner = owner;
            out.push_back(std::move(d));
        }
        return out;
    });
}

Status PgWorkflowStore::FinishCallback(const workflow::CallbackDelivery& delivery) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto r = tx.exec_params(
            "DELETE FROM callback_deliveries WHERE id = $1 AND lease_owner = $2 RETURNING id",
            delivery.id,
            delivery.lease_owner
        );
        tx.commit();
        return r.empty() ? Status(kLeaseLost) : Ok();
    });
}

Status PgWorkflowStore::RetryCallback(
    const workflow::CallbackDelivery& delivery, std::chrono::milliseconds delay, const std::string& error
) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto r = tx.exec_params(
            "UPDATE callback_deliveries SET lease_owner = NULL, lease_until = NULL, last_error = $3, "
            "next_at = now() + make_interval(secs => $4 / 1000.0) WHERE id = $1 AND lease_owner = $2 RETURNING id",
            delivery.id,
            delivery.lease_owner,
            error.substr(0, 2000),
            static_cast<std::int64_t>(delay.count())
        );
        tx.commit();
        return r.empty() ? Status(kLeaseLost) : Ok();
    });
}

}  // namespace orch::store
