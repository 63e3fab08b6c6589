#pragma once

#include "cmdb/site_model.hpp"
#include "cmdb/sla.hpp"
#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "monitoring/signals.hpp"
#include "orchestrator/placement/placement_options.hpp"
#include "orchestrator/placement/placer.hpp"
#include "request_profile.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::placement {

/// One candidate service while a placement runs: what the filters found and what ranking needs.
struct Evaluation {
    std::string provider_id;
    std::string service_id;
    const cmdb::Provider* provider = nullptr;  ///< null when the catalogue lacks it
    const cmdb::Service* service = nullptr;
    std::string sla_id;
    std::optional<double> weight;
    const cmdb::SlaService* sla_service = nullptr;

    std::vector<std::string> reasons;  ///< rejections, in words a user understands
    std::vector<std::string> notes;    ///< informational (chosen flavor, unknown monitoring, ...)
    /// Flavor and image chosen per VM node (turned into NodePlacements only for candidates).
    struct VmChoice {
        const tosca::NodeSpec* node = nullptr;
        const cmdb::Flavor* flavor = nullptr;
        const cmdb::Image* image = nullptr;
        std::string image_uri;  ///< when the template names an IM image URI
    };
    std::vector<VmChoice> vm_choices;
    const cmdb::Tenant* tenant = nullptr;

    // Live signals (gpu-aware mode); unknown stays empty.
    std::optional<bool> up;
    std::optional<double> response_ms;
    double fit = 1.0;  ///< 0..1, set by the VM and capacity filters
    bool gpu_capable = false;

    double score = 0;
    ScoreBreakdown breakdown;  ///< empty until ranking fills it

    bool rejected() const { return !reasons.empty(); }
    void Reject(std::string reason) { reasons.push_back(std::move(reason)); }
};

/// Everything about the request that every service is checked against.
struct PlacementContext {
    const tosca::DeploymentSpec& spec;
    const RequestProfile& profile;
    const Requester& requester;
    const std::string& deployment_id;  ///< left out of quota usage (empty for dry runs)
    const std::string& group;
    const cmdb::SlaSet& slas;
    const cmdb::Catalogue& catalogue;
    const PlacementOptions& options;
};

/// What the template's placement policies allow, decided once per placement.
struct PolicyScope {
    std::vector<const cmdb::Sla*> slas;     ///< every SLA policy's SLA (all must cover the service)
    std::vector<std::string> regions;       ///< regions asked by SLA policies
    std::vector<std::string> sites;         ///< sites named by Placement policies (cloud_id)
    std::vector<std::string> services;      ///< services named by policies
    std::vector<std::string> missing_slas;  ///< sla_ids that the group does not have
    std::vector<std::string> notes;
};

PolicyScope BuildPolicyScope(const tosca::DeploymentSpec& spec, const cmdb::SlaSet& slas, const std::string& group);

// Filters. Each appends every reason it finds to `eval` (none when the service passes).
void CheckKind(const PlacementContext& context, Evaluation& eval);
void CheckIdentity(const PlacementContext& context, Evaluation& eval);
void CheckPolicies(const PolicyScope& scope, Evaluation& eval);
/// OpenStack: project of the group, flavor and image per VM node, volume types, public IPs.
void CheckVirtualMachines(const PlacementContext& context, Evaluation& eval);
/// Marathon, Chronos, Kubernetes, Slurm: GPU support and the catalogue's declared GPUs, secrets.
void CheckDeclaredCapacity(const PlacementContext& context, Evaluation& eval);
/// gpu-aware only: the site is up, and its live free GPUs (per model), CPUs and memory suffice.
void CheckLive(const PlacementContext& context, const monitoring::Snapshot& snapshot, Evaluation& eval);

/// The service's parent (Mesos master) in the catalogue, or null.
const cmdb::Service* ParentOf(const cmdb::Catalogue& catalogue, const cmdb::Service& service);

}  // namespace orch::placement
