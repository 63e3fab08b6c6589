#pragma once

#include "connectors/connector.hpp"
#include "connectors/kubernetes_connector.hpp"
#include "connectors/rest_client.hpp"
#include "tosca/deployment_spec.hpp"

#include <vector>

namespace orch::connectors::kubernetes {

/// Reads the namespace and every object of `manifests` (namespace first) and judges them.
ConnectorResult<Observation> PollNamespace(
    RestClient& rest,
    const Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::vector<KubeManifest>& manifests
);

}  // namespace orch::connectors::kubernetes
