#pragma once

// What a state change writes beside itself in its transaction (private to the store area): the
// callback outbox row (0008) and the event log rows (0007). Shared by the workflow commit and
// the lease sweep, so both notify in the same way.
#include "orchestrator/domain/event.hpp"

#include <pqxx/pqxx>

#include <string>
#include <vector>

namespace orch::store {

/// Queues a delivery of the deployment's callback, if it has one.
void InsertCallback(pqxx::work& tx, const std::string& deployment_id);
/// Appends events of the deployment; call it last before COMMIT (it takes the ordering lock).
void InsertEvents(pqxx::work& tx, const std::string& deployment_id, const std::vector<domain::Event>& events);

}  // namespace orch::store
