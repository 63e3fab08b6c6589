#pragma once

#include <string>
#include <string_view>

namespace orch::cmdb {

/// What a CMDB service is, decided from its `service_type`.
enum class ServiceKind {
    kOpenStack,       ///< org.openstack.nova
    kMarathon,        ///< eu.indigo-datacloud.marathon
    kChronos,         ///< eu.indigo-datacloud.chronos
    kKubernetes,      ///< eu.deep.kubernetes (also compute.k8s.io/v1)
    kSlurm,           ///< org.schedmd.slurm: our own type for Slurm (slurmrestd) sites
    kMesosMaster,     ///< eu.indigo-datacloud.mesos: parent of Marathon/Chronos, never a target
    kQcg,             ///< eu.deep.qcg: known, but no connector speaks QCG
    kCredentialIaas,  ///< AWS, Azure, OTC: IM-only clouds that need user credentials (no connector)
    kOtherIaas,       ///< OpenNebula, OCCI, the pre-2019 OpenStack type: known, no connector
    kStorage,         ///< OneData / CDMI storage
    kUnknown,
};

/// The service_type strings, as the CMDB writes them.
inline constexpr std::string_view kTypeOpenStack = "org.openstack.nova";
inline constexpr std::string_view kTypeMarathon = "eu.indigo-datacloud.marathon";
inline constexpr std::string_view kTypeChronos = "eu.indigo-datacloud.chronos";
inline constexpr std::string_view kTypeKubernetes = "eu.deep.kubernetes";
inline constexpr std::string_view kTypeSlurm = "org.schedmd.slurm";
inline constexpr std::string_view kTypeMesos = "eu.indigo-datacloud.mesos";
inline constexpr std::string_view kTypeQcg = "eu.deep.qcg";

ServiceKind ParseServiceKind(std::string_view service_type);

/// Short words for users: "openstack", "marathon", "chronos", "kubernetes", "slurm", "mesos", ...
std::string_view ServiceKindWord(ServiceKind kind);

/// True for the kinds a deployment can be sent to (a connector exists).
bool IsDeployable(ServiceKind kind);

}  // namespace orch::cmdb
