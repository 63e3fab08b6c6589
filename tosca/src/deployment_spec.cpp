#include "tosca/deployment_spec.hpp"

#include "tosca/target_routing.hpp"

#include <algorithm>

namespace orch::tosca {
namespace {

constexpr std::string_view kNormativeNodePrefix = "tosca.nodes.";

bool TypeNameMatches(std::string_view chain_entry, std::string_view type) {
    if (chain_entry == type) {
        return true;
    }
    // Normative short names ("Compute") and the "tosca:" prefix stand for tosca.nodes.<name>.
    if (type.rfind("tosca:", 0) == 0) {
        type.remove_prefix(6);
    }
    return type.find('.') == std::string_view::npos &&
           chain_entry.size() == kNormativeNodePrefix.size() + type.size() &&
           chain_entry.rfind(kNormativeNodePrefix, 0) == 0 && chain_entry.substr(kNormativeNodePrefix.size()) == type;
}

}  // namespace

std::string_view DeploymentKindName(DeploymentKind kind) {
    switch (kind) {
        case DeploymentKind::kVirtualMachines:
            return "VIRTUAL_MACHINES";
        case DeploymentKind::kMarathon:
            return "MARATHON";
        case DeploymentKind::kChronos:
            return "CHRONOS";
        case DeploymentKind::kKubernetes:
            return "KUBERNETES";
        case DeploymentKind::kSlurm:
            return "SLURM";
    }
    return "VIRTUAL_MACHINES";
}

std::optional<DeploymentKind> ParseDeploymentKind(std::string_view name) {
    for (const auto kind :
         {DeploymentKind::kVirtualMachines,
          DeploymentKind::kMarathon,
          DeploymentKind::kChronos,
          DeploymentKind::kKubernetes,
          DeploymentKind::kSlurm}) {
        if (DeploymentKindName(kind) == name) {
            return kind;
        }
    }
    return std::nullopt;
}

std::string_view OriginalDeploymentTypeName(DeploymentKind kind) {
    switch (kind) {
        case DeploymentKind::kVirtualMachines:
            return "TOSCA";
        case DeploymentKind::kMarathon:
            return "MARATHON";
        case DeploymentKind::kChronos:
            return "CHRONOS";
        case DeploymentKind::kKubernetes:
            return "KUBERNETES_HELM_CHART";
        case DeploymentKind::kSlurm:
            return "QCG";
    }
    return "TOSCA";
}

bool DerivesFrom(const NodeSpec& node, std::string_view type) {
    return std::any_of(node.type_chain.begin(), node.type_chain.end(), [&](const std::string& t) {
        return TypeNameMatches(t, type);
    });
}

std::vector<const NodeSpec*> DeploymentSpec::WorkloadNodes() const {
    std::vector<const NodeSpec*> out;
    for (const auto& node : nodes) {
        if (RouteOfTypeChain(node.type_chain) == kind) {
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

std::vector<const NodeSpec*> DeploymentSpec::NodesOfType(std::string_view type) const {
    std::vector<const NodeSpec*> out;
    for (const auto& node : nodes) {
        if (DerivesFrom(node, type)) {
            out.push_back(&node);
        }
    }
    return out;
}

}  // namespace orch::tosca
