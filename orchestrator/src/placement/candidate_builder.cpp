#include "candidate_builder.hpp"

#include "gpu_model.hpp"
#include "im_sites.hpp"

namespace orch::placement {
namespace {

void SetIfPresent(Json& options, const char* key, const std::string& value) {
    if (!value.empty()) {
        options[key] = value;
    }
}

// Keystone federation needs the IdP id the site registered for the user's issuer.
std::string IdentityProviderFor(const cmdb::Service& service, const std::string& issuer) {
    for (const auto& idp : service.supported_idps) {
        if (TrimSlash(idp.issuer) == TrimSlash(issuer)) {
            return idp.name;
        }
    }
    return service.supported_idps.empty() ? std::string() : service.supported_idps.front().name;
}

void OpenStackOptions(const Evaluation& eval, const Requester& requester, connectors::SiteTarget& target) {
    const auto& service = *eval.service();
    Json& options = target.options;
    SetIfPresent(options, "identity_provider", IdentityProviderFor(service, requester.issuer));
    options["protocol"] = service.idp_protocol;
    options["public_ip_assignable"] = service.public_ip_assignable;
    SetIfPresent(options, "microversion", service.microversion);
    if (eval.tenant != nullptr) {
        target.project = eval.tenant->tenant_name;
        SetIfPresent(options, "project_id", eval.tenant->tenant_id);
        SetIfPresent(options, "network", eval.tenant->private_network_name);
        SetIfPresent(options, "public_network", eval.tenant->public_network_name);
        SetIfPresent(options, "private_network_cidr", eval.tenant->private_network_cidr);
        SetIfPresent(options, "proxy_host", eval.tenant->proxy_host);
        SetIfPresent(options, "proxy_user", eval.tenant->proxy_user);
    }
}

}  // namespace

connectors::TargetKind TargetKindFor(cmdb::ServiceKind kind) {
    switch (kind) {
        case cmdb::ServiceKind::kMarathon:
            return connectors::TargetKind::kMarathon;
        case cmdb::ServiceKind::kChronos:
            return connectors::TargetKind::kChronos;
        case cmdb::ServiceKind::kKubernetes:
            return connectors::TargetKind::kKubernetes;
        case cmdb::ServiceKind::kSlurm:
            return connectors::TargetKind::kSlurm;
        default:
            return connectors::TargetKind::kOpenStack;
    }
}

// cloudProviderEndpoint.deploymentType is the original's IaaSType: its batch jobs (QCG, which
// our Slurm services stand in for) are QCG there, and the dashboard and orchent show that name.
// An IM-only VM site is served by the VM router (kind OpenStack) but is the cloud IM reaches:
// the original's type for its service type (placement.md: OpenNebula → OPENNEBULA, EC2 → AWS;
// EGI FedCloud sites are OpenStack clouds → OPENSTACK).
namespace {
std::string ContractIaasType(const connectors::SiteTarget& target) {
    if (target.kind == connectors::TargetKind::kSlurm) {
        return "QCG";
    }
    const auto im_cloud = target.options.is_object() ? target.options.find("im_cloud_type") : target.options.end();
    if (target.kind == connectors::TargetKind::kOpenStack && im_cloud != target.options.end() &&
        im_cloud->is_string()) {
        if (*im_cloud == "OpenNebula") {
            return "OPENNEBULA";
        }
        if (*im_cloud == "EC2") {
            return "AWS";
        }
    }
    return std::string(connectors::TargetKindName(target.kind));
}
}  // namespace

Json EndpointJson(const connectors::SiteTarget& target) {
    Json endpoint = {
        {"cpEndpoint", target.endpoint},
        {"cpComputeServiceId", target.service_id},
        {"deploymentType", ContractIaasType(target)},
    };
    if (!target.region.empty()) {
        endpoint["region"] = target.region;
    }
    return endpoint;
}

Candidate BuildCandidate(const Evaluation& eval, const Requester& requester) {
    const auto& service = *eval.service();
    Candidate candidate;
    auto& target = candidate.target;
    target.site_id = std::string(eval.provider_id());
    target.service_id = std::string(eval.service_id());
    target.kind = TargetKindFor(service.kind);
    target.endpoint = service.endpoint;
    target.region = service.region;
    // Site switches travel verbatim (gpu_attribute, partition, namespace, ...); computed ones follow.
    target.options = service.properties.is_object() ? service.properties : Json::object();
    // Every kind: the workflow sends such a site the owner's token (from the token keeper).
    target.options["iam_enabled"] = service.iam_enabled;
    if (eval.site->kind == cmdb::ServiceKind::kOpenStack) {
        OpenStackOptions(eval, requester, target);
        const std::string_view im_cloud = ImOnlyCloudType(service);
        if (!im_cloud.empty()) {
            target.options["im_cloud_type"] = std::string(im_cloud);
        }
    } else {
        target.project =
            service.StringProperty("project", service.StringProperty("namespace", service.StringProperty("account")));
    }
    eval.vm_choices.ForEach([&](const Evaluation::VmChoice& choice) {
        connectors::NodePlacement placement;
        placement.flavor_id = choice.flavor->flavor_id;
        placement.flavor_name = choice.flavor->name;
        placement.image_id = choice.image != nullptr ? choice.image->image_id : choice.image_uri;
        placement.image_name = choice.image != nullptr ? choice.image->name : choice.image_uri;
        candidate.placements[choice.node->name] = std::move(placement);
        const auto& asked = choice.node->resources.gpu;
        if (asked.count > 0 && choice.flavor->gpus > 0 && !choice.flavor->gpu_model.empty()) {
            tosca::GpuRequest chosen = asked;
            chosen.model = choice.flavor->gpu_model;
            chosen.vendor = choice.flavor->gpu_vendor.empty() ? asked.vendor : choice.flavor->gpu_vendor;
            chosen.memory_mb = choice.flavor->gpu_memory_mb ? choice.flavor->gpu_memory_mb : asked.memory_mb;
            candidate.chosen_gpus[choice.node->name] = std::move(chosen);
        }
    });
    // cloudProviderName: the name (the Federation Registry keys providers by uid, the CMDB by name).
    candidate.provider_name = std::string(eval.site->provider_name);
    candidate.endpoint = EndpointJson(target);
    candidate.score = eval.score;
    return candidate;
}

}  // namespace orch::placement
