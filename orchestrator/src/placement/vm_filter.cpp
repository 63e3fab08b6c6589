#include "evaluation.hpp"
#include "vm_match.hpp"

#include <algorithm>

namespace orch::placement {
namespace {

// 0 = nothing wasted, 1 = all of it wasted; GPUs weigh most because they are the scarce part.
double Waste(const NodeNeed& need, const FlavorIndex::Size& flavor) {
    auto fraction = [](double offered, double wanted) {
        return offered > 0 ? std::clamp((offered - wanted) / offered, 0.0, 1.0) : 0.0;
    };
    return 0.5 * fraction(flavor.gpus, std::max(need.gpu.count, 0)) + 0.3 * fraction(flavor.vcpus, need.cpus) +
           0.2 * fraction(static_cast<double>(flavor.ram_mb), static_cast<double>(need.mem_mb));
}

std::string NodeLabel(const NodeNeed& need) {
    return "node '" + need.node->name + "': ";
}

void CheckVolumes(const RequestProfile& profile, Evaluation& eval) {
    const auto& offered = eval.service()->volume_types;
    for (const auto& wanted : profile.volume_types) {
        const bool found = std::any_of(offered.begin(), offered.end(), [&](const cmdb::VolumeType& v) {
            return v.name == wanted || v.qos == wanted;
        });
        if (!found) {
            std::string list;
            for (const auto& v : offered) {
                list += (list.empty() ? "" : ", ") + v.name;
            }
            eval.Reject("has no volume type '" + wanted + "' (offers: " + (list.empty() ? "none" : list) + ")");
        }
    }
}

// The index answers when the node names no flavor, and a miss is put into words (by the scan's
// narrowing, which names the closest offer) only when the explanation is shown: thousands of
// sites may miss per placement. A named flavor goes through ChooseFlavor.
const cmdb::Flavor* PickFlavor(
    const PlacementContext& context,
    std::size_t node,
    const cmdb::Tenant& tenant,
    Evaluation& eval,
    FlavorIndex::Size& size
) {
    const auto& facts = (*context.nodes)[node];
    if (context.flavor_index != nullptr && facts.instance_type.empty()) {
        const auto& query = (*context.flavor_queries)[node];
        // The universe looked the tenant (eval.tenant, taken from it) up in this very index.
        const auto* flavor = context.flavor_index->Smallest(tenant, eval.site->flavors, query, &size);
        if (flavor == nullptr) {
            eval.reasons.push_back(Reason::Deferred(&ExplainFlavorMiss, context.texts, &facts, &tenant));
        }
        return flavor;
    }
    auto choice = ChooseFlavor(facts.need, facts.instance_type, tenant.flavors);
    if (choice.flavor == nullptr) {
        eval.Reject("node '" + facts.name + "': " + choice.reason);
    } else {
        size = {choice.flavor->gpus, choice.flavor->vcpus, choice.flavor->ram_mb};
    }
    return choice.flavor;
}

// ChooseImage on this site's images, answered from the memo when another site with the same
// image list was checked before in this placement.
ImageChoice ChooseImageFor(const PlacementContext& context, std::size_t node, const Evaluation& eval) {
    const auto& wish = context.profile.nodes[node].node->resources;
    auto& entry = context.images->by_node[node][eval.site->image_set];
    if (!entry.made) {
        auto made = ChooseImage(wish, eval.tenant->images);
        entry.made = true;
        entry.position = made.image != nullptr ? static_cast<int>(made.image - eval.tenant->images.data()) : -1;
        entry.uri = std::move(made.uri);
        entry.reason = std::move(made.reason);
    }
    ImageChoice choice;
    if (entry.position >= 0) {
        choice.image = eval.site->images + entry.position;
    } else if (!entry.uri.empty()) {
        choice.uri = entry.uri;
    } else {
        choice.reason = entry.reason;
    }
    return choice;
}

}  // namespace

void CheckVirtualMachines(const PlacementContext& context, Evaluation& eval) {
    if (KindOf(eval) != cmdb::ServiceKind::kOpenStack ||
        context.profile.kind != tosca::DeploymentKind::kVirtualMachines) {
        return;
    }
    const auto& service = *eval.service();
    if (context.profile.elastic_cluster && !service.public_ip_assignable) {
        eval.Reject("cannot assign public IPs, which an elastic cluster needs");
    }
    CheckVolumes(context.profile, eval);
    eval.tenant = eval.site->tenant;
    if (eval.tenant == nullptr) {
        eval.Reject("has no project for your group '" + context.group + "'");
        return;
    }
    double waste = 0;
    int sized = 0;
    const auto& nodes = context.profile.nodes;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const auto& need = nodes[n];
        FlavorIndex::Size size;
        const auto* flavor = PickFlavor(context, n, *eval.tenant, eval, size);
        const auto image = ChooseImageFor(context, n, eval);
        if (!image.found()) {
            eval.Reject(NodeLabel(need) + image.reason);
        }
        if (flavor == nullptr || !image.found()) {
            continue;
        }
        // The note shares ownership of the catalogue and the node names (context.texts); an image
        // URI is the request's own text, so that rarer note is put into words now.
        const std::string& node_name = (*context.nodes)[n].name;
        eval.notes.push_back(
            image.image != nullptr ? Reason::VmChoice(context.texts, node_name, flavor->name, image.image->name)
                                   : Reason(Reason::VmChoice(nullptr, node_name, flavor->name, image.uri).Text())
        );
        eval.vm_choices.push_back({need.node, flavor, image.image, image.uri});
        waste += Waste(need, size);
        ++sized;
        eval.gpu_capable = eval.gpu_capable || size.gpus > 0;
    }
    eval.fit = sized > 0 ? 1.0 - waste / sized : 1.0;
}

}  // namespace orch::placement
