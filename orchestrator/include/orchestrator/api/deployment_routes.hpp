#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"

namespace orch::api {

/// /deployments and /deployments/{id}: list, create, get, update, reset, delete (contract §3.4–3.9).
void RegisterDeploymentRoutes(server::Router& router, ApiContext& ctx);

/// /deployments/{id}/{log,extrainfo,template,resources...} and actions (contract §3.10–3.16).
void RegisterResourceRoutes(server::Router& router, ApiContext& ctx);

}  // namespace orch::api
