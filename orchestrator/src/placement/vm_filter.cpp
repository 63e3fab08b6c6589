#include "evaluation.hpp"
#include "vm_match.hpp"

#include <algorithm>

namespace orch::placement {
namespace {

// 0 = nothing wasted, 1 = all of it wasted; GPUs weigh most because they are the scarce part.
double Waste(const NodeNeed& need, const cmdb::Flavor& flavor) {
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
    const auto& offered = eval.service->volume_types;
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

}  // namespace

void CheckVirtualMachines(const PlacementContext& context, Evaluation& eval) {
    const auto& service = *eval.service;
    if (service.kind != cmdb::ServiceKind::kOpenStack ||
        context.profile.kind != tosca::DeploymentKind::kVirtualMachines) {
        return;
    }
    if (context.profile.elastic_cluster && !service.public_ip_assignable) {
        eval.Reject("cannot assign public IPs, which an elastic cluster needs");
    }
    CheckVolumes(context.profile, eval);
    eval.tenant = service.TenantFor(context.group);
    if (eval.tenant == nullptr) {
        eval.Reject("has no project for your group '" + context.group + "'");
        return;
    }
    double waste = 0;
    int sized = 0;
    for (const auto& need : context.profile.nodes) {
        const auto flavor = ChooseFlavor(need, eval.tenant->flavors);
        const auto image = ChooseImage(need.node->resources, eval.tenant->images);
        if (flavor.flavor == nullptr) {
            eval.Reject(NodeLabel(need) + flavor.reason);
        }
        if (!image.found()) {
            eval.Reject(NodeLabel(need) + image.reason);
        }
        if (flavor.flavor == nullptr || !image.found()) {
            continue;
        }
        const std::string& image_name = image.image != nullptr ? image.image->name : image.uri;
        std::string note;
        note.reserve(32 + need.node->name.size() + flavor.flavor->name.size() + image_name.size());
        note.append("node '")
            .append(need.node->name)
            .append("': flavor ")
            .append(flavor.flavor->name)
            .append(", image '")
            .append(image_name)
            .append("'");
        eval.notes.push_back(std::move(note));
        eval.vm_choices.push_back({need.node, flavor.flavor, image.image, image.uri});
        waste += Waste(need, *flavor.flavor);
        ++sized;
        eval.gpu_capable = eval.gpu_capable || flavor.flavor->gpus > 0;
    }
    eval.fit = sized > 0 ? 1.0 - waste / sized : 1.0;
}

}  // namespace orch::placement
