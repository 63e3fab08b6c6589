#pragma once

#include <set>
#include <string>

namespace orch::app {

/// The keys read by the app's own parsers: server, database, log, instance_id, workflow, tosca
/// (EngineOptionsFromConfig) and credentials ("credentials.*": any site name).
std::set<std::string> AppConfigKeys();

/// Every configuration key the orchestrator reads: AppConfigKeys() plus auth::AuthConfigKeys()
/// and placement::PlacementConfigKeys(), in ConfigTree::CheckKnownKeys' form ("a.*" = any child).
/// docs/configuration.md must list exactly these (unit test).
std::set<std::string> KnownConfigKeys();

}  // namespace orch::app
