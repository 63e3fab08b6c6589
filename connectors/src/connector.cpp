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

std::string_view InstanceStatusName(InstanceStatus status) {
    switch (status) {
        case InstanceStatus::kUnknown:
            return "UNKNOWN";
        case InstanceStatus::kCreating:
            return "CREATING";
        case InstanceStatus::kConfiguring:
            return "CONFIGURING";
        case InstanceStatus::kStarting:
            return "STARTING";
        case InstanceStatus::kStarted:
            return "STARTED";
        case InstanceStatus::kStopping:
            return "STOPPING";
        case InstanceStatus::kStopped:
            return "STOPPED";
        case InstanceStatus::kDeleting:
            return "DELETING";
        case InstanceStatus::kDeleted:
            return "DELETED";
        case InstanceStatus::kError:
            return "ERROR";
    }
    return "UNKNOWN";
}

}  // namespace orch::connectors
