#pragma once

#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/site_client_factory.hpp"

#include <cstddef>

namespace orch::connectors {

struct SlurmOptions {
    CallOptions call;                           ///< bounds of each REST call
    std::size_t max_jobs_per_deployment = 256;  ///< bounds what one template can submit
};

/// HPC sites through slurmrestd (OpenAPI v0.0.38, Slurm 22.05), JWT authentication:
/// SiteTarget::credentials.username → X-SLURM-USER-NAME, credentials.bearer_token →
/// X-SLURM-USER-TOKEN. Every instance of every batch-job node is one Slurm job named
/// SlurmJobName(...). The deployment is ready when every job COMPLETED; a job that ends any other
/// way fails it. Delete cancels what still runs and marks it so Poll can tell a cancelled job
/// from a failed one.
class SlurmConnector final : public Connector {
   public:
    explicit SlurmConnector(SiteClientFactory& clients, SlurmOptions options = {});

    TargetKind kind() const override { return TargetKind::kSlurm; }

    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    /// Reconciles the job set with the new counts: jobs named in removal_list (by job id) and those
    /// beyond the count (highest indexes first) are cancelled, missing instances submitted with
    /// the lowest free indexes. Jobs that stay are not changed.
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    /// Cancels every job still pending or running. kComplete when every job has ended (a
    /// deployment whose jobs all completed stays "ready" in Poll: this is the only answer),
    /// kInProgress while cancelled jobs are still completing (Poll then reports kGone).
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    /// Batch jobs cannot be started or stopped: always kUserError.
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;
    /// "Slurm 22.05.8": the release slurmrestd's ping answer names in its meta.
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override;

   private:
    // The operations themselves; the public ones run them under GuardJson, so an answer shaped
    // unlike the API promises becomes a failure instead of an exception.
    ConnectorResult<Handle> CreateUnguarded(const DeployRequest& request);
    ConnectorResult<Observation> PollUnguarded(const Handle& handle, const tosca::DeploymentSpec& spec);
    ConnectorResult<Handle> UpdateUnguarded(const Handle& handle, const DeployRequest& request);
    ConnectorResult<Deletion> DeleteUnguarded(const Handle& handle, bool force);

    SiteClientFactory& clients_;
    SlurmOptions options_;
};

}  // namespace orch::connectors
