#pragma once

// `elastic.*`: the elastic-cluster autoscaler's settings and its queue signal from Prometheus.
#include "common/config.hpp"
#include "common/http_client.hpp"
#include "orchestrator/api/elastic_sweep.hpp"

#include <chrono>
#include <set>
#include <string>

namespace orch::app {

struct ElasticConfig {
    bool enabled = false;
    std::string prometheus_url;  ///< "" = placement.monitoring.url
    std::string metric = "paas_cluster_pending_jobs";
    std::string label = "deployment_id";
    std::chrono::milliseconds timeout{std::chrono::seconds(5)};
    api::ElasticSweepOptions sweep;
};

/// Errors name the key. Enabled without a Prometheus URL (own or the placement feed's) is an error.
Result<ElasticConfig> ParseElasticConfig(const ConfigTree& tree);
std::set<std::string> ElasticConfigKeys();

/// `sum(<metric>{<label>="<deployment id>"})` from Prometheus; nullopt when no series matches.
api::QueueSignal MakePrometheusQueueSignal(http::Client& http, const ElasticConfig& config);

}  // namespace orch::app
