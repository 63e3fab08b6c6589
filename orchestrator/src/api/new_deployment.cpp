#include "orchestrator/api/new_deployment.hpp"

#include <algorithm>

#include "common/uuid.hpp"
#include "orchestrator/api/deployment_routes.hpp"

namespace orch::api {

Status CheckInstanceCap(const tosca::DeploymentSpec& spec, const DeploymentLimits& limits) {
    std::int64_t instances = 0;  // 64-bit: node count x per-node count overflows an int
    for (const auto& node : spec.nodes) {
        instances += std::max(0, node.count);
    }
    if (instances > limits.max_instances) {
        return Error::InvalidArgument("The template asks for " + std::to_string(instances) +
                                      " node instances; a deployment may have at most " +
                                      std::to_string(limits.max_instances) + " (deployments.max_instances)");
    }
    return Ok();
}

Result<store::NewDeployment> BuildNewDeployment(workflow::TemplateService& templates, const DeploymentDraft& draft,
                                                const DeploymentLimits& limits) {
    const Json& accepted = draft.parameters_accepted ? draft.parameters : workflow::NoAcceptedParameters();
    ORCH_ASSIGN_OR_RETURN(const tosca::DeploymentSpec spec,
                          templates.Build(draft.template_text, draft.parameters, accepted));
    ORCH_RETURN_IF_ERROR(CheckInstanceCap(spec, limits));
    store::NewDeployment created;
    domain::Deployment& d = created.deployment;
    d.id = SequentialUuid();
    d.created_at = std::chrono::system_clock::now();
    d.updated_at = d.created_at;
    d.status = domain::Status::kCreateInProgress;
    d.callback = draft.callback;
    d.user_group = draft.user_group;
    d.owner = draft.owner;
    d.template_text = draft.template_text;
    d.parameters = draft.parameters;
    d.options = draft.options;
    d.kind = spec.kind;
    SummariseRequest(spec, d.req_cpus, d.req_mem_mb, d.req_gpus, d.req_instances);
    created.resources = ResourcesFor(spec, d.id, d.created_at);
    return created;
}

}  // namespace orch::api
