#include "orchestrator/api/update_capacity.hpp"

#include "common/log.hpp"
#include "orchestrator/service/new_deployment.hpp"

namespace orch::api {

Status CheckUpdateFitsSite(ApiContext& ctx, const domain::Deployment& d, const tosca::DeploymentSpec& spec) {
    if (ctx.placer == nullptr || !d.cloud_provider_endpoint.is_object()) {
        return {};
    }
    const std::string service_id = d.cloud_provider_endpoint.value("cpComputeServiceId", "");
    if (service_id.empty()) {
        return {};
    }
    // Only an update that asks for more is checked: live capacity feeds count what the deployment
    // already holds as used, so re-checking an unchanged request could refuse it on its own usage.
    double cpus = 0;
    std::int64_t mem_mb = 0;
    int gpus = 0;
    int instances = 0;
    service::SummariseRequest(spec, cpus, mem_mb, gpus, instances);
    if (cpus <= d.req_cpus && mem_mb <= d.req_mem_mb && gpus <= d.req_gpus && instances <= d.req_instances) {
        return {};
    }
    placement::PlacementRequest place;
    place.spec = &spec;
    // The owner's placement (SLAs and quotas of the deployment's group); its own usage is excluded.
    place.requester = {d.owner ? d.owner->issuer : "", d.owner ? d.owner->subject : "", d.user_group};
    place.deployment_id = d.id;
    auto decision = ctx.placer->Place(place);
    if (!decision) {
        // Placement itself could not run (no catalogue): not the user's update's fault.
        ORCH_LOG_WARN(
            "capacity check of an update skipped", {{"deployment_id", d.id}, {"error", decision.error().message}}
        );
        return {};
    }
    for (const auto& verdict : decision->verdicts) {
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

}  // namespace orch::api
