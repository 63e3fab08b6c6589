#include "orchestrator/app/routes.hpp"

#include "orchestrator/api/deployment_routes.hpp"
#include "orchestrator/api/diagnostics_routes.hpp"
#include "orchestrator/api/event_routes.hpp"
#include "orchestrator/api/placement_routes.hpp"
#include "orchestrator/api/schedule_routes.hpp"
#include "orchestrator/api/system_routes.hpp"
#include "orchestrator/api/types_routes.hpp"
#include "orchestrator/ops/ops_routes.hpp"

namespace orch::app {

void RegisterAllRoutes(
    server::Router& router,
    store::DatabaseSupervisor& database,
    api::ApiContext& api_context,
    api::ScheduleApi& schedule_api,
    metrics::Registry& metrics_registry
) {
    api::RegisterSystemRoutes(router, database);
    api::RegisterTypesRoutes(router);
    api::RegisterDeploymentRoutes(router, api_context);
    api::RegisterResourceRoutes(router, api_context);
    api::RegisterPlacementRoutes(router, api_context);
    api::RegisterEventRoutes(router, api_context);
    api::RegisterDiagnosticsRoutes(router, api_context);
    api::RegisterScheduleRoutes(router, schedule_api);
    ops::RegisterOpsRoutes(router, metrics_registry);
}

}  // namespace orch::app
