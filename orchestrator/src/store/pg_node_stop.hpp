#pragma once

// The one place that picks and queues a deployment's next node stop (private to the store
// area): the lease sweep (pg_lease_store.cpp) and idle reclamation (pg_idle_store.cpp) stop
// node by node through it, so both stop the same nodes in the same order.
#include "orchestrator/workflow/node_stop.hpp"

#include <pqxx/pqxx>

#include <string>
#include <vector>

namespace orch::store {

/// Queues the action job stopping the deployment's first STARTED resource (creation order)
/// whose type chain holds one of `stoppable_types`, as POST .../actions does, and marks it
/// STOPPING. The caller holds the deployment row lock.
workflow::NextStop QueueNextStop(
    pqxx::work& tx, const std::string& id, const std::vector<std::string>& stoppable_types
);

}  // namespace orch::store
