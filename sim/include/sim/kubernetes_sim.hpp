#pragma once

#include "common/json.hpp"
#include "sim/json_schema.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"

#include <memory>
#include <set>
#include <string>

namespace orch::sim {

/// A wire-faithful simulation of the kube-apiserver 1.20 subset the orchestrator uses, with the
/// controllers and the scheduler that make objects progress: Namespaces (with termination),
/// Deployments (pods, rollout status and conditions, scale subresource), Jobs (completions,
/// backoff limit, deadline), batch/v1beta1 CronJobs (cron schedules spawn Jobs), Services
/// (cluster IPs, node ports), ConfigMaps, Secrets, PVCs, read-only Pods and Events.
///
/// Every create/replace/patch is validated against the generated strict schemas (unknown fields
/// are rejected, as `fieldValidation=Strict` does on 1.25+) and the API server's own rules
/// (names, GPU limits, restart policies, selectors), answering with meta/v1 Status bodies.
/// Deletion honours propagationPolicy with the real defaults (Jobs and CronJobs orphan their
/// children unless told otherwise). Pods are scheduled against the configured nodes honouring
/// nodeSelector, required node affinity, GPU taints and cpu/memory/nvidia.com/gpu capacity;
/// unschedulable pods carry the scheduler's message ("0/3 nodes are available: ...").
///
/// Container behaviour can be steered through its environment (simulator-only knobs):
/// SIM_EXIT_CODE=<n> (Job pods fail, long-running pods crash-loop), SIM_RUN_SECONDS=<s> (Job run
/// time), SIM_IMAGE_PULL_ERROR=1 (the image cannot be pulled).
///
/// Not thread-safe: the owner (SiteSim) serialises calls.
class KubernetesSim {
   public:
    KubernetesSim(const SimConfig& config, const SchemaSet& schemas);
    ~KubernetesSim();
    KubernetesSim(const KubernetesSim&) = delete;
    KubernetesSim& operator=(const KubernetesSim&) = delete;

    SimResponse Handle(const SimRequest& request, double now);
    void Advance(double now, const std::set<std::string>& exhausted);
    Json Objects() const;
    /// Applies a new node list (capacity changes at run time).
    void SetNodes(const std::vector<KubeNodeSpec>& nodes);

    struct State;

   private:
    std::unique_ptr<State> state_;
};

}  // namespace orch::sim
