#include "orchestrator/api/update_capacity.hpp"

#include "common/log.hpp"
#include "orchestrator/placement/usage.hpp"
#include "orchestrator/service/new_deployment.hpp"

namespace orch::api {
namespace {

// 409 with placement's reasons when the deployment's site refused the updated spec.
Status RefusedBySite(const placement::PlacementDecision& decision, const std::string& service_id) {
    for (const auto& verdict : decision.verdicts) {
        if (verdict.service_id != service_id || verdict.accepted) {
            continue;
        }
        std::string why;
        for (const auto& reason : verdict.reasons) {
            why += (why.empty() ? "" : "; ") + reason.Text();
        }
        const std::string site = (verdict.provider_name.empty() ? verdict.provider_id : verdict.provider_name).str();
        return Error::Conflict(
            "The site " + site +
            " running this deployment cannot hold the update: " + (why.empty() ? "not usable" : why)
        );
    }
    return {};
}

// The deployment's service among the ranked candidates (its SLA quotas); past the end when it is
// not there (only the configured quotas then apply).
std::size_t CandidateOf(const placement::PlacementDecision& decision, const std::string& service_id) {
    std::size_t i = 0;
    while (i < decision.ranked.size() && decision.ranked[i].target.service_id != service_id) {
        ++i;
    }
    return i;
}

}  // namespace

Result<std::vector<workflow::QuotaClaim>> AdmitUpdate(
    ApiContext& ctx,
    const domain::Deployment& d,
    const tosca::DeploymentSpec* before,
    const tosca::DeploymentSpec& after
) {
    if (ctx.placer == nullptr || !d.cloud_provider_endpoint.is_object()) {
        return std::vector<workflow::QuotaClaim>{};
    }
    const std::string service_id = d.cloud_provider_endpoint.value("cpComputeServiceId", "");
    if (service_id.empty()) {
        return std::vector<workflow::QuotaClaim>{};
    }
    const auto new_request = placement::RequestedResources(after);
    const auto old_request = before != nullptr ? placement::RequestedResources(*before) : new_request;
    // Only an update that asks for more is checked against the site: live capacity feeds count
    // what the deployment already holds as used, so re-checking a smaller request could refuse
    // it on its own usage.
    double cpus = 0;
    std::int64_t mem_mb = 0;
    int gpus = 0;
    int instances = 0;
    service::SummariseRequest(after, cpus, mem_mb, gpus, instances);
    const bool grows = cpus > d.req_cpus || mem_mb > d.req_mem_mb || gpus > d.req_gpus || instances > d.req_instances;
    const bool changes = old_request.cpus != new_request.cpus || old_request.ram_mb != new_request.ram_mb ||
                         old_request.gpus != new_request.gpus || old_request.instances != new_request.instances;
    if (!grows && !changes) {
        return std::vector<workflow::QuotaClaim>{};  // nothing to check or account (GPU models aside)
    }
    placement::PlacementRequest place;
    place.spec = &after;
    // The owner's placement (SLAs and quotas of the deployment's group); its own usage is excluded.
    const placement::Requester requester{d.owner ? d.owner->issuer : "", d.owner ? d.owner->subject : "", d.user_group};
    place.requester = requester;
    place.deployment_id = d.id;
    auto decision = ctx.placer->Place(place);
    if (!decision) {
        // Placement itself could not run (no catalogue): not the user's update's fault.
        ORCH_LOG_WARN(
            "capacity check of an update skipped", {{"deployment_id", d.id}, {"error", decision.error().message}}
        );
        return std::vector<workflow::QuotaClaim>{};
    }
    if (grows) {
        ORCH_RETURN_IF_ERROR(RefusedBySite(*decision, service_id));
    }
    if (!changes || before == nullptr) {
        return std::vector<workflow::QuotaClaim>{};
    }
    const std::size_t candidate = CandidateOf(*decision, service_id);
    return workflow::UpdateClaims(
        workflow::ClaimsFor(*decision, requester, old_request, *before, candidate),
        workflow::ClaimsFor(*decision, requester, new_request, after, candidate)
    );
}

}  // namespace orch::api
