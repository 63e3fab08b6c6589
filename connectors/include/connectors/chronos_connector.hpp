#pragma once

#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/site_client_factory.hpp"

#include <string>
#include <vector>

namespace orch::connectors {

/// One Chronos job to submit, in submission order (parents first).
struct ChronosJobPlan {
    std::string node;        ///< TOSCA node name
    int index = 0;           ///< instance number when the node's count > 1
    bool dependent = false;  ///< POST /scheduler/dependency (has parents) vs /scheduler/iso8601
    Json body;
};

/// Chronos (Mesos batch jobs): one job per workload node instance, named
/// "<deployment id>-<node>[-<n>]", submitted in dependency order: a node with a `schedule` (ISO
/// 8601 repeating interval) or none ("R1//PT24H": run once, now) goes to /scheduler/iso8601; a
/// node depending on other job nodes (parent_job) goes to /scheduler/dependency with those jobs
/// as parents. cpus/mem/disk from the node's resources; GPUs only where the site says its
/// Chronos supports them (upstream Chronos silently drops `gpus`), then with the Mesos
/// containerizer.
///
/// Site options read: "gpu_support" (default false), "gpu_attribute" (agent attribute for a GPU
/// model constraint, default "gpu_model"), "local_volumes_host_base_path" (default "/tmp/").
/// The endpoint may or may not end in "/v1"; it is added when missing.
///
/// Ready after every job has succeeded at least once; a job whose retries are exhausted
/// (errorCount > 0 before any success) fails the deployment ("try another site", as the
/// original moved to the next provider).
class ChronosConnector final : public Connector {
   public:
    explicit ChronosConnector(SiteClientFactory& clients, CallOptions options = {});

    TargetKind kind() const override { return TargetKind::kChronos; }
    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    /// Kills and removes the deployment's jobs: kInProgress (running tasks end asynchronously),
    /// kComplete when there was no job left.
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;

   private:
    ConnectorResult<RestClient> ClientFor(const SiteTarget& target);
    ConnectorResult<std::vector<std::string>> ExistingJobs(RestClient& rest, const std::string& deployment_id);
    ConnectorResult<bool> Submit(
        RestClient& rest,
        const std::vector<ChronosJobPlan>& plans,
        bool replace_existing,
        const std::string& deployment_id
    );

    SiteClientFactory& clients_;
    CallOptions options_;
};

/// The jobs for a deployment, parents first (exposed for tests and documentation).
ConnectorResult<std::vector<ChronosJobPlan>> BuildChronosJobs(const DeployRequest& request);

/// The job name of one node instance.
std::string ChronosJobName(const std::string& deployment_id, const std::string& node, int index, int count);

}  // namespace orch::connectors
