#pragma once

#include "common/http_client.hpp"
#include "common/metrics.hpp"
#include "monitoring/gpu_utilisation.hpp"
#include "orchestrator/app/idle_config.hpp"
#include "orchestrator/ops/idle_metrics.hpp"
#include "orchestrator/workflow/idle_reclaimer.hpp"

#include <memory>

namespace orch::app {

/// Idle GPU reclamation as configured: the Prometheus client and DCGM reader, the metrics, and
/// the reclaimer over them (null when `idle.*` enables no policy or names no Prometheus).
struct IdleWiring {
    std::unique_ptr<monitoring::PrometheusClient> prometheus;
    std::unique_ptr<monitoring::GpuUtilisationReader> reader;
    std::unique_ptr<ops::IdleMetrics> metrics;
    std::unique_ptr<workflow::IdleReclaimer> reclaimer;
};

/// Everything passed must outlive the result.
IdleWiring MakeIdleReclaimer(
    const IdleConfig& config,
    http::Client& http,
    workflow::IdleStore& store,
    const Clock& clock,
    metrics::Registry& registry
);

}  // namespace orch::app
