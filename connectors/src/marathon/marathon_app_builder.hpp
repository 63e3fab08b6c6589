#pragma once

#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "tosca/deployment_spec.hpp"

#include <map>
#include <string>

namespace orch::connectors::marathon {

/// Marathon has no "stopped": a stopped app runs 0 instances and keeps, in this label, the count
/// it had, so start restores it (also after an orchestrator restart) and Poll reports the
/// instances as stopped. A PUT rebuilds the app without it (started, with the template's count).
inline constexpr char kStoppedInstancesLabel[] = "ORCH_STOPPED_INSTANCES";

/// Relative app id per workload node name: the node name as a Marathon id segment, made unique.
std::map<std::string, std::string> AppIds(const tosca::DeploymentSpec& spec);

/// The Marathon app definition for one node; `app_id` is the absolute id ("/<group>/<app>").
ConnectorResult<Json> BuildApp(const tosca::NodeSpec& node, const std::string& app_id, const DeployRequest& request);

}  // namespace orch::connectors::marathon
