#pragma once

#include "common/metrics.hpp"
#include "orchestrator/server/router.hpp"

namespace orch::ops {

/// GET /metrics (Prometheus text format 0.0.4) and GET /openapi.json (the embedded description).
/// Both run on the worker pool: the metrics collectors may read the database pool's stats and
/// refresh cached store counters.
void RegisterOpsRoutes(server::Router& router, metrics::Registry& registry);

}  // namespace orch::ops
