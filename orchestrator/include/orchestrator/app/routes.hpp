#pragma once

#include "common/metrics.hpp"
#include "orchestrator/api/api_context.hpp"
#include "orchestrator/api/schedule_routes.hpp"
#include "orchestrator/server/router.hpp"
#include "orchestrator/store/database_supervisor.hpp"

namespace orch::app {

/// Every route the orchestrator serves, in one place, so main and the OpenAPI coverage test
/// register exactly the same set. (POST /schedules/notifications is registered by the
/// HttpFileNotificationSource that main wires as the schedules' file notification source.)
void RegisterAllRoutes(
    server::Router& router,
    store::DatabaseSupervisor& database,
    api::ApiContext& api_context,
    api::ScheduleApi& schedule_api,
    metrics::Registry& metrics_registry
);

}  // namespace orch::app
