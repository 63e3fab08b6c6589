#pragma once

#include "common/metrics.hpp"
#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"
#include "orchestrator/store/database_supervisor.hpp"

namespace orch::app {

/// Every route the orchestrator serves, in one place, so main and the OpenAPI coverage test
/// register exactly the same set.
void RegisterAllRoutes(server::Router& router, store::DatabaseSupervisor& database, api::ApiContext& api_context,
                       metrics::Registry& metrics_registry);

}  // namespace orch::app
