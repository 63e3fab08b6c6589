#include "tosca/target_routing.hpp"

#include <array>

namespace orch::tosca {
namespace {

// Base type → target. The shipped orchestrator types profile (tosca/profiles) defines the
// tosca.nodes.indigo.Kubernetes.* workloads; HelmChart and the Mesos/QCG types are INDIGO's.
constexpr std::array kRoutes{
    TargetRoute{"tosca.nodes.indigo.Container.Application.Docker.Chronos", DeploymentKind::kChronos},
    TargetRoute{"tosca.nodes.indigo.Container.Application.Docker.Marathon", DeploymentKind::kMarathon},
    TargetRoute{"tosca.nodes.indigo.Container.Application.Docker.Kubernetes", DeploymentKind::kKubernetes},
    TargetRoute{"tosca.nodes.indigo.Kubernetes.Workload", DeploymentKind::kKubernetes},
    TargetRoute{"tosca.nodes.indigo.Kubernetes.Deployment", DeploymentKind::kKubernetes},
    TargetRoute{"tosca.nodes.indigo.Kubernetes.Job", DeploymentKind::kKubernetes},
    TargetRoute{"tosca.nodes.indigo.Kubernetes.CronJob", DeploymentKind::kKubernetes},
    TargetRoute{"tosca.nodes.indigo.Kubernetes.HelmChart", DeploymentKind::kKubernetes},
    TargetRoute{"tosca.nodes.indigo.Batch.Job", DeploymentKind::kSlurm},
    TargetRoute{"tosca.nodes.Compute", DeploymentKind::kVirtualMachines},
};

}  // namespace

std::span<const TargetRoute> TargetRoutes() {
    return kRoutes;
}

std::optional<DeploymentKind> RouteOfTypeChain(const std::vector<std::string>& type_chain) {
    for (const auto& type : type_chain) {
        for (const auto& route : kRoutes) {
            if (route.base_type == type) {
                return route.kind;
            }
        }
    }
    return std::nullopt;
}

DeploymentKind RouteDeployment(const std::vector<const std::vector<std::string>*>& type_chains) {
    for (const auto* chain : type_chains) {
        const auto kind = RouteOfTypeChain(*chain);
        // Virtual machines are the fallback, not a claim: a Compute node beside a Marathon app
        // (a template's helper VM) does not turn the deployment into an IM one.
        if (kind && *kind != DeploymentKind::kVirtualMachines) {
            return *kind;
        }
    }
    return DeploymentKind::kVirtualMachines;
}

}  // namespace orch::tosca
