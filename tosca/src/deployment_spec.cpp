#include "tosca/deployment_spec.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

bool DerivesFromAny(const NodeSpec& node, std::initializer_list<std::string_view> types) {
    return std::any_of(node.type_chain.begin(), node.type_chain.end(), [&](const std::string& t) {
        return std::find(types.begin(), types.end(), t) != types.end();
    });
}

}  // namespace

std::string_view DeploymentKindName(DeploymentKind kind) {
    switch (kind) {
        case DeploymentKind::kVirtualMachines: return "VIRTUAL_MACHINES";
        case DeploymentKind::kMarathon: return "MARATHON";
        case DeploymentKind::kChronos: return "CHRONOS";
        case DeploymentKind::kKubernetes: return "KUBERNETES";
        case DeploymentKind::kSlurm: return "SLURM";
    }
    return "VIRTUAL_MACHINES";
}

std::vector<const NodeSpec*> DeploymentSpec::WorkloadNodes() const {
    std::vector<const NodeSpec*> out;
    for (const auto& node : nodes) {
        if (DerivesFromAny(
                node,
                {"tosca.nodes.indigo.Container.Application.Docker.Marathon",
                 "tosca.nodes.indigo.Container.Application.Docker.Chronos",
                 "tosca.nodes.indigo.Container.Application.Docker.Kubernetes",
                 "tosca.nodes.indigo.Kubernetes.Deployment",
                 "tosca.nodes.indigo.Kubernetes.Job",
                 "tosca.nodes.indigo.Batch.Job",
                 "tosca.nodes.Compute"}
            )) {
            out.push_back(&node);
        }
    }
    return out;
}

const NodeSpec* DeploymentSpec::FindNode(const std::string& name) const {
    for (const auto& node : nodes) {
        if (node.name == name) {
            return &node;
        }
    }
    return nullptr;
}

}  // namespace orch::tosca
