#include "orchestrator/app/wiring_idle.hpp"

#include "common/log.hpp"

namespace orch::app {

IdleWiring MakeIdleReclaimer(
    const IdleConfig& config,
    http::Client& http,
    workflow::IdleStore& store,
    const Clock& clock,
    metrics::Registry& registry
) {
    IdleWiring w;
    w.metrics = std::make_unique<ops::IdleMetrics>(registry);
    if (!config.enabled || config.prometheus_url.empty()) {
        if (config.enabled) {
            ORCH_LOG_WARN("idle reclamation enabled without idle.prometheus_url: not running");
        }
        return w;
    }
    w.prometheus =
        std::make_unique<monitoring::PrometheusClient>(http, config.prometheus_url, config.prometheus_timeout);
    w.reader = std::make_unique<monitoring::GpuUtilisationReader>(*w.prometheus, config.series);
    // Kubernetes workloads are found by the namespace our connector made (the deployment's
    // physical id); any other site's series by the deployment-id label it adds.
    workflow::GpuUtilisationFn utilisation =
        [reader = w.reader.get()](const workflow::IdleCandidate& c, std::chrono::seconds window) {
            return reader->MaxUtilisation({c.physical_id, c.deployment_id}, window);
        };
    w.reclaimer = std::make_unique<workflow::IdleReclaimer>(
        store, std::move(utilisation), clock, config.policies, config.reclaimer, w.metrics.get()
    );
    return w;
}

}  // namespace orch::app
