#pragma once

namespace orch::workflow {

/// What queueing a deployment's next node stop did. Leases and idle reclamation both stop a
/// deployment node by node, one workflow action job at a time, through the same store helper
/// (store/pg_node_stop.cpp and its in-memory twin), and come back at their next sweep for the
/// next node until none is left.
enum class NextStop {
    kQueued,    ///< one more node's stop job was queued (its resource is STOPPING)
    kNoneLeft,  ///< no STARTED node of the stoppable types is left: the stop is done
    kBusy,      ///< another workflow job holds the deployment: nothing written, try again later
};

}  // namespace orch::workflow
