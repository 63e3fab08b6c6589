#pragma once

#include "connectors/connector.hpp"
#include "connectors/kubernetes_connector.hpp"
#include "connectors/rest_client.hpp"
#include "tosca/deployment_spec.hpp"

#include <string>
#include <vector>

namespace orch::connectors::kubernetes {

/// The condition of `type` in an object's `status.conditions` (workloads, pods, Flux releases),
/// as a pointer into `status` itself, or null when there is none.
const Json* FindCondition(const Json& status, const std::string& type);

/// Reads the namespace and every object of `manifests` (namespace first) and judges them.
ConnectorResult<Observation> PollNamespace(
    RestClient& rest,
    const Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::vector<KubeManifest>& manifests
);

}  // namespace orch::connectors::kubernetes
