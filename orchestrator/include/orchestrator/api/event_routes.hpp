#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"

namespace orch::api {

/// GET /deployments/{id}/events and GET /events: the durable event log as Server-Sent Events.
void RegisterEventRoutes(server::Router& router, ApiContext& ctx);

}  // namespace orch::api
