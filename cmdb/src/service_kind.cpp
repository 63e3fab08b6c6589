#include "cmdb/service_kind.hpp"

#include <array>
#include <utility>

namespace orch::cmdb {

ServiceKind ParseServiceKind(std::string_view service_type) {
    static constexpr std::array<std::pair<std::string_view, ServiceKind>, 17> kTable{{
        {kTypeOpenStack, ServiceKind::kOpenStack},
        {kTypeMarathon, ServiceKind::kMarathon},
        {kTypeChronos, ServiceKind::kChronos},
        {kTypeKubernetes, ServiceKind::kKubernetes},
        {"compute.k8s.io/v1", ServiceKind::kKubernetes},
        {kTypeSlurm, ServiceKind::kSlurm},
        {kTypeMesos, ServiceKind::kMesosMaster},
        {kTypeQcg, ServiceKind::kQcg},
        {"com.amazonaws.ec2", ServiceKind::kCredentialIaas},
        {"com.microsoft.azure", ServiceKind::kCredentialIaas},
        {"eu.otc.compute", ServiceKind::kCredentialIaas},
        {"eu.egi.cloud.vm-management.opennebula", ServiceKind::kOtherIaas},
        {"eu.egi.cloud.vm-management.occi", ServiceKind::kOtherIaas},
        {"eu.indigo-datacloud.im-tosca.opennebula", ServiceKind::kOtherIaas},
        {"eu.egi.cloud.vm-management.openstack", ServiceKind::kOtherIaas},
        {"eu.egi.cloud.storage-management.oneprovider", ServiceKind::kStorage},
        {"eu.egi.cloud.storage-management.cdmi", ServiceKind::kStorage},
    }};
    for (const auto& [name, kind] : kTable) {
        if (name == service_type) {
            return kind;
        }
    }
    return ServiceKind::kUnknown;
}

std::string_view ServiceKindWord(ServiceKind kind) {
    switch (kind) {
        case ServiceKind::kOpenStack:
            return "openstack";
        case ServiceKind::kMarathon:
            return "marathon";
        case ServiceKind::kChronos:
            return "chronos";
        case ServiceKind::kKubernetes:
            return "kubernetes";
        case ServiceKind::kSlurm:
            return "slurm";
        case ServiceKind::kMesosMaster:
            return "mesos";
        case ServiceKind::kQcg:
            return "qcg";
        case ServiceKind::kCredentialIaas:
            return "public cloud";
        case ServiceKind::kOtherIaas:
            return "iaas";
        case ServiceKind::kStorage:
            return "storage";
        case ServiceKind::kUnknown:
            return "unknown";
    }
    return "unknown";
}

bool IsDeployable(ServiceKind kind) {
    switch (kind) {
        case ServiceKind::kOpenStack:
        case ServiceKind::kMarathon:
        case ServiceKind::kChronos:
        case ServiceKind::kKubernetes:
        case ServiceKind::kSlurm:
            return true;
        default:
            return false;
    }
}

}  // namespace orch::cmdb
