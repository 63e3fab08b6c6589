#include "pg_node_stop.hpp"

#include "pg_rows.hpp"

namespace orch::store {

workflow::NextStop QueueNextStop(
    pqxx::work& tx, const std::string& id, const std::vector<std::string>& stoppable_types
) {
    // A node is stopped only between operations: a step running now is waited for.
    if (!tx.exec_params("SELECT 1 FROM jobs WHERE deployment_id = $1::uuid AND workflow", id).empty()) {
        return workflow::NextStop::kBusy;
    }
    const auto r = tx.exec_params(
        "SELECT id::text FROM resources WHERE deployment_id = $1::uuid AND state = 'STARTED' "
        "AND type_chain && ARRAY(SELECT jsonb_array_elements_text($2::jsonb)) ORDER BY created_at, id LIMIT 1 "
        "FOR UPDATE",
        id,
        Json(stoppable_types).dump()
    );
    if (r.empty()) {
        return workflow::NextStop::kNoneLeft;
    }
    const std::string resource = r[0][0].as<std::string>();
    tx.exec_params("UPDATE resources SET state = 'STOPPING', updated_at = now() WHERE id = $1::uuid", resource);
    tx.exec_params(
        "INSERT INTO jobs (deployment_id, kind, payload) VALUES ($1::uuid, 'action', $2::jsonb)",
        id,
        WithRequestId(Json{{"resource", resource}, {"action", "stop"}}).dump()
    );
    return workflow::NextStop::kQueued;
}

}  // namespace orch::store
