#include "orchestrator/api/deployment_update.hpp"

#include "common/log.hpp"
#include "orchestrator/api/scaling.hpp"
#include "orchestrator/api/update_capacity.hpp"
#include "orchestrator/service/new_deployment.hpp"

namespace orch::api {

Status BeginDeploymentUpdate(
    ApiContext& ctx,
    const domain::Deployment& d,
    const DeploymentChange& change,
    const std::function<Status()>& before_commit
) {
    Json merged = d.parameters.is_object() ? d.parameters : Json::object();
    merged.update(change.parameters);
    // The stored parameters were accepted with the deployment: only the new ones are checked anew.
    ORCH_ASSIGN_OR_RETURN(
        const tosca::DeploymentSpec spec, ctx.templates.Build(change.template_text, merged, d.parameters)
    );
    // Scaling up is bounded as creating is.
    ORCH_RETURN_IF_ERROR(service::CheckInstanceCap(spec, ctx.deployment_limits));
    // A scale the site cannot hold is refused now, with placement's reason, instead of failing
    // on the site minutes later; what it changes on the quotas is reserved with the update.
    // The stored template as it builds now: should it no longer (a types profile changed), the
    // update is still checked against the site, and its quota change is not accounted.
    const auto before = ctx.templates.Build(d.template_text, d.parameters, d.parameters);
    if (!before) {
        ORCH_LOG_WARN(
            "the stored template no longer builds: the update's quota change is not accounted",
            {{"deployment_id", d.id}, {"error", before.error().message}}
        );
    }
    ORCH_ASSIGN_OR_RETURN(auto admission, AdmitUpdate(ctx, d, before ? &*before : nullptr, spec));
    ORCH_ASSIGN_OR_RETURN(auto existing, ctx.store.ListResources(d.id, std::nullopt, 0, 100000, {}));
    ORCH_ASSIGN_OR_RETURN(const ScalingPlan plan, PlanScaling(spec, existing.items, d.id, ctx.clock.now()));
    if (before_commit) {
        ORCH_RETURN_IF_ERROR(before_commit());
    }
    store::UpdateRequest update;
    update.id = d.id;
    update.template_text = change.template_text;
    update.parameters = std::move(merged);
    update.callback = change.callback;
    update.options = change.options;
    update.added = plan.added;
    update.removed_resource_ids = plan.removed;
    update.expires_at = change.expires_at;
    update.events = change.events;
    update.admission = std::move(admission);
    service::SummariseRequest(spec, update.req_cpus, update.req_mem_mb, update.req_gpus, update.req_instances);
    ORCH_RETURN_IF_ERROR(ctx.store.BeginUpdate(update));
    if (ctx.wake_workflow) {
        ctx.wake_workflow();
    }
    return Ok();
}

}  // namespace orch::api
