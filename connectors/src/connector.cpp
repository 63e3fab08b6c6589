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

}  // namespace orch::connectors
