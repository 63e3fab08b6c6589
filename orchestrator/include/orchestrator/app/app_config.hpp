#pragma once

#include "common/config.hpp"
#include "common/egress_policy.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "orchestrator/api/event_stream.hpp"
#include "orchestrator/server/http_server.hpp"
#include "orchestrator/service/deployment_limits.hpp"
#include "orchestrator/store/pg_pool.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace orch::app {

/// The orchestrator's own settings. Module sections (auth, placement, tosca, connectors) are
/// parsed by their modules from `tree`, so each keeps its keys next to its code.
struct AppConfig {
    server::ServerOptions server;
    std::string external_base_url;  ///< e.g. https://paas.example.org/orchestrator; empty = from the request
    store::PgPoolOptions database;
    log::Level log_level = log::Level::kInfo;
    std::string instance_id;  ///< names this process in job leases (default host:pid)
    /// What user-directed requests (callbacks) may reach: egress.allowed widens the default.
    std::shared_ptr<const http::EgressPolicy> egress = std::make_shared<const http::EgressPolicy>();
    service::DeploymentLimits deployment_limits;
    api::EventStreamOptions events;  ///< events.* (the SSE streams; events.retention is the engine's)
    ConfigTree tree;
};

/// Environment names that map onto config keys besides the generic ORCHESTRATOR_A__B form.
const std::map<std::string, std::string>& EnvironmentAliases();

/// Loads `path` (may be empty: defaults only), applies the environment, validates.
/// Every error names the key and the problem.
Result<AppConfig> LoadConfig(const std::string& path, const std::map<std::string, std::string>& env);

}  // namespace orch::app
