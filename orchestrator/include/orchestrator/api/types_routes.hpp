#pragma once

#include "orchestrator/server/router.hpp"

namespace orch::api {

/// GET /types/v1/orchestrator.yaml: the orchestrator's TOSCA types profile (no auth, as /info:
/// templates import it and tools fetch it before the user has a token).
void RegisterTypesRoutes(server::Router& router);

}  // namespace orch::api
