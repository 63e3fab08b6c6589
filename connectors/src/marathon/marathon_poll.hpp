#pragma once

#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"
#include "tosca/deployment_spec.hpp"

namespace orch::connectors::marathon {

/// Reads the deployment's group and apps and judges them (see MarathonConnector).
ConnectorResult<Observation> PollGroup(RestClient& rest, const Handle& handle, const tosca::DeploymentSpec& spec);

}  // namespace orch::connectors::marathon
