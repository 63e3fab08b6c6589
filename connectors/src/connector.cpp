#include "connectors/connector.hpp"

namespace orch::connectors {

std::string_view TargetKindName(TargetKind kind) {
    switch (kind) {
        case TargetKind::kOpenStack:
            return "OPENSTACK";
        case TargetKind::kMarathon:
            return "MARATHON";
        case TargetKind::kChronos:
            return "CHRONOS";
        case TargetKind::kKubernetes:
            return "KUBERNETES";
        case TargetKind::kSlurm:
            return "SLURM";
    }
    return "OPENSTACK";
}

std::optional<tosca::NodeState> NodeStateOf(InstanceStatus status) {
    if (status == InstanceStatus::kUnknown) {
        return std::nullopt;
    }
    return static_cast<tosca::NodeState>(static_cast<int>(status));
}

std::string_view InstanceStatusName(InstanceStatus status) {
    const auto state = NodeStateOf(status);
    return state ? tosca::NodeStateName(*state) : "UNKNOWN";
}

}  // namespace orch::connectors
