#pragma once

#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/site_client_factory.hpp"

#include <string>
#include <vector>

namespace orch::connectors {

/// What a workload node becomes on Kubernetes.
enum class KubeWorkload {
    kDeployment,  ///< long-running (Marathon-like): Deployment, plus a NodePort Service when it has ports
    kJob,         ///< batch (Chronos-like) without a schedule: Job
    kCronJob,     ///< batch with a schedule: batch/v1beta1 CronJob
};

/// tosca.nodes.indigo.Container.Application.Docker.Kubernetes (and ...Kubernetes.Deployment)
/// are long-running; tosca.nodes.indigo.Kubernetes.Job and ...Docker.Chronos are batch; any
/// node with a `schedule` is a CronJob.
KubeWorkload KubeWorkloadOf(const tosca::NodeSpec& node);

/// One object to create, in creation order.
struct KubeManifest {
    std::string node;  ///< TOSCA node name ("" for the namespace)
    std::string kind;  ///< Namespace, Deployment, Service, Job, CronJob
    std::string name;
    std::string collection;  ///< API path of the collection, e.g. /apis/apps/v1/namespaces/<ns>/deployments
    Json body;
};

/// Kubernetes: a namespace per deployment ("<prefix>-<deployment id>"); per workload node a
/// Deployment (+ Service), Job or CronJob named after the node. GPUs become
/// `nvidia.com/gpu` limits with a toleration of the usual GPU taint, and a GPU model a
/// nodeSelector (one product) or required node affinity (several) on `nvidia.com/gpu.product`.
///
/// Site options read: "namespace_prefix" (default: the target's project, else "orch"),
/// "service_type" (NodePort by default), "gpu_products" (object: model -> list of
/// nvidia.com/gpu.product values; otherwise the model with spaces as '-'), "worker_nodes_ip"
/// (list, for endpoint attributes). Authentication: the user's or site's bearer token, or a
/// client certificate (through the SiteClientFactory) with the site's CA.
///
/// Ready: Deployments by their rollout status (observedGeneration, updated == available ==
/// replicas, Available=True); Jobs when Complete; CronJobs once accepted. Failed: a pod the
/// scheduler cannot place ("Insufficient nvidia.com/gpu", no node matching the GPU model) or a
/// Progressing=False deadline -> try another site; a Job's Failed condition -> try another site;
/// an invalid image name -> user error. Deletion is foreground (workloads, then the namespace).
class KubernetesConnector final : public Connector {
   public:
    explicit KubernetesConnector(SiteClientFactory& clients, CallOptions options = {});

    TargetKind kind() const override { return TargetKind::kKubernetes; }
    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    /// Foreground-deletes the workloads, then the namespace: kInProgress until Poll sees the
    /// namespace gone; kComplete only when every object was already gone (404).
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    /// Sets each Deployment the update scaled up back to the replica count it had before (the
    /// handle's `rollback` entries, recorded by Update only when the update changed nothing but
    /// replica counts); the surplus pods, Pending ones first, go. kUserError when none is recorded.
    ConnectorResult<Restored> RollBack(const Handle& handle) override;
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;
    /// "Kubernetes <gitVersion>" from GET /version.
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override;

   private:
    ConnectorResult<RestClient> ClientFor(const SiteTarget& target);

    SiteClientFactory& clients_;
    CallOptions options_;
};

/// The namespace of a deployment on a target.
std::string KubernetesNamespace(const std::string& deployment_id, const SiteTarget& target);

/// Every object for a deployment: the namespace first, then per node its workload and service
/// (exposed for tests and documentation).
ConnectorResult<std::vector<KubeManifest>> BuildKubernetesManifests(const DeployRequest& request);

/// An ISO 8601 repeating interval ("R/2024-01-01T02:30:00Z/P1D") as a cron schedule
/// ("30 2 * * *"); a text that already is a cron schedule passes unchanged. Periods that do not
/// divide an hour or a day (or are not a week or a month) have no cron equivalent: user error.
/// Repetition counts cannot be expressed (a CronJob repeats until deleted).
ConnectorResult<std::string> IsoScheduleToCron(const std::string& schedule);

}  // namespace orch::connectors
