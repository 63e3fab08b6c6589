#pragma once

#include "cmdb/site_model.hpp"
#include "cmdb/sla.hpp"
#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "monitoring/signals.hpp"
#include "orchestrator/placement/placement_options.hpp"
#include "orchestrator/placement/placer.hpp"
#include "request_profile.hpp"
#include "site_universe.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::placement {

struct NodeFacts;  // vm_match.hpp

/// One candidate service while a placement runs: what the filters found and what ranking needs.
/// Ids are views of the SLA set's and the catalogue's own texts (PlacementContext::texts keeps them).
struct Evaluation {
    /// What is known of the site before any request: set by the placer before any filter runs.
    const UniverseSite* site = nullptr;
    /// Its monitoring data, found once per snapshot (set before CheckLive runs).
    const SiteSignals* live = nullptr;
    // What ranking reads and writes, in the same cache line as `site`: ranking visits thousands
    // of evaluations, and these fields at the end of the record cost a cache miss each.
    std::optional<bool> up;  ///< live signals (gpu-aware mode); unknown stays empty
    bool gpu_capable = false;
    double fit = 1.0;  ///< 0..1, set by the VM and capacity filters
    std::optional<double> response_ms;
    double score = 0;

    // The site's identity, read from the universe (resolved once per SLA set and catalogue
    // version), not copied into each of thousands of evaluations per placement.
    std::string_view service_id() const { return site->service_id; }
    std::string_view provider_id() const { return site->provider_id; }
    std::string_view sla_id() const { return site->sla_id; }
    std::optional<double> weight() const { return site->weight; }
    const cmdb::SlaService* sla_service() const { return site->sla_service; }
    std::uint32_t id_order() const { return site->id_order; }          ///< the universe's order of service ids
    const cmdb::Provider* provider() const { return site->provider; }  ///< null when the catalogue lacks it
    const cmdb::Service* service() const { return site->service; }

    Reasons reasons;  ///< rejections (every one found)
    Reasons notes;    ///< informational (chosen flavor, unknown monitoring, ...)
    /// Flavor and image chosen per VM node (turned into NodePlacements only for candidates).
    struct VmChoice {
        const tosca::NodeSpec* node = nullptr;
        const cmdb::Flavor* flavor = nullptr;
        const cmdb::Image* image = nullptr;
        std::string image_uri;  ///< when the template names an IM image URI
    };
    /// One per VM node, in node order. The first is kept inline: most templates have one VM node,
    /// and thousands of accepted sites then allocate nothing for their choice.
    struct VmChoices {
        std::optional<VmChoice> first;
        std::vector<VmChoice> more;

        void push_back(VmChoice choice) {
            if (!first) {
                first = std::move(choice);
            } else {
                more.push_back(std::move(choice));
            }
        }
        template <typename Visit>
        void ForEach(Visit&& visit) const {
            if (first) {
                visit(*first);
            }
            for (const auto& choice : more) {
                visit(choice);
            }
        }
    };
    VmChoices vm_choices;
    const cmdb::Tenant* tenant = nullptr;

    ScoreBreakdown breakdown;  ///< empty until ranking fills it
    /// Free GPUs of any model the live feed reports (CheckLive); unknown stays empty. The
    /// admission cycle reads it with the catalogue's num_gpus (PlacementDecision::gpu_sites).
    std::optional<int> free_gpus;

    bool rejected() const { return !reasons.empty(); }
    void Reject(std::string reason) { reasons.push_back(Reason(std::move(reason))); }
};

/// Image choices of this placement per (VM node, SiteUniverse::image_sets entry), made the first
/// time a site with that image list is checked (see CheckVirtualMachines).
struct ImageMemo {
    struct Entry {
        bool made = false;
        int position = -1;  ///< in the list; -1 when nothing matched or an image URI was named
        std::string uri;
        std::string reason;
    };
    std::vector<std::vector<Entry>> by_node;  ///< [node][image set]
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
    /// The catalogue's flavor index and each profile node's need compiled against it (same
    /// order as profile.nodes); without them flavors are scanned.
    const FlavorIndex* flavor_index = nullptr;
    const std::vector<FlavorIndex::Query>* flavor_queries = nullptr;
    /// What each profile node asks, kept alive by `texts` (reasons and notes refer to it).
    const std::vector<NodeFacts>* nodes = nullptr;
    /// Per SiteUniverse::idp_sets: whether that list trusts the requester's issuer.
    const std::vector<char>* trusted_idp_sets = nullptr;
    /// Sized per profile node and image set by the placer.
    ImageMemo* images = nullptr;
    /// The universe the evaluations' `site`s belong to.
    const SiteUniverse* universe = nullptr;
    /// Keeps alive every text the reasons point into (the catalogue, the SLA set,
    /// `nodes`, the universe): they share it, so none outlives what it points into.
    std::shared_ptr<const void> texts;
};

/// The service kind, from the universe's copy (no pointer chase per site).
inline cmdb::ServiceKind KindOf(const Evaluation& eval) {
    return eval.site->kind;
}

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
/// The request's forced target (provider id or name, region), when it names one.
void CheckTarget(const DeploymentLimits& limits, Evaluation& eval);
/// The request's target and limits in words, for the decision's notes (none when it sets none).
std::vector<std::string> LimitNotes(const DeploymentLimits& limits);
/// gpu-aware only: the site is up, and its live free GPUs (per model), CPUs and memory suffice.
void CheckLive(const PlacementContext& context, Evaluation& eval);

/// The service's parent (Mesos master) in the catalogue, or null.
const cmdb::Service* ParentOf(const cmdb::Catalogue& catalogue, const cmdb::Service& service);

}  // namespace orch::placement
