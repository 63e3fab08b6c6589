#pragma once

#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/site_client_factory.hpp"

#include <string>

namespace orch::connectors {

/// Marathon (Mesos long-running services): one group per deployment ("/<deployment id>"), one
/// app per workload node (id from the node name). GPU apps use the Mesos containerizer with host
/// networking and portDefinitions; others the Docker containerizer with container/bridge
/// networking and portMappings (network modes lowercase, as the schema requires). A GPU model
/// becomes a LIKE constraint on the site's agent attribute.
///
/// Site options read (SiteTarget::options): "gpu_attribute" (agent attribute holding the GPU
/// model, default "gpu_model"), "gpu_support" (false refuses GPU apps), "load_balancer_ips"
/// (list, exposed as an attribute), "local_volumes_host_base_path" (host path prefix for local
/// volumes, default "/tmp/").
///
/// Ready when every app has no deployment in flight and its running (or, with health checks,
/// healthy) tasks reach the instance count. Marathon never reports failure itself; an app whose
/// every offer is declined for resources or constraints (from /v2/queue) while none of its tasks
/// runs fails with "try another site", and the last task failure is reported as the reason.
class MarathonConnector final : public Connector {
   public:
    explicit MarathonConnector(SiteClientFactory& clients, CallOptions options = {});

    TargetKind kind() const override { return TargetKind::kMarathon; }
    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    /// Removes the deployment's group: kInProgress (Marathon kills the tasks asynchronously),
    /// kComplete when the group was already gone.
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;
    /// "Marathon <version>" from GET /v2/info.
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override;

   private:
    ConnectorResult<RestClient> ClientFor(const SiteTarget& target);

    SiteClientFactory& clients_;
    CallOptions options_;
};

/// "/<deployment id>" as a Marathon group id.
std::string MarathonGroupId(const std::string& deployment_id);

/// The POST /v2/groups body for a deployment (exposed for tests and documentation).
ConnectorResult<Json> BuildMarathonGroup(const DeployRequest& request);

}  // namespace orch::connectors
