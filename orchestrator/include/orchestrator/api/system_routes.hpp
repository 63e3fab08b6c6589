#pragma once

#include "orchestrator/server/router.hpp"
#include "orchestrator/store/database_supervisor.hpp"

namespace orch::api {

/// GET / (text INDIGO-Orchestrator), /info (build facts, no auth), /healthz (liveness: the process
/// serves requests), /readyz (readiness: the database answers and the schema is current).
void RegisterSystemRoutes(server::Router& router, store::DatabaseSupervisor& database);

}  // namespace orch::api
