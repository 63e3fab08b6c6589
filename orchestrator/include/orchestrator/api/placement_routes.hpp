#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"

namespace orch::api {

/// GET /deployments/{id}/placement (the stored explanation), GET /deployments/{id}/attempts
/// (every site tried, in order, with outcome and reason) and POST /placement (dry run).
void RegisterPlacementRoutes(server::Router& router, ApiContext& ctx);

}  // namespace orch::api
