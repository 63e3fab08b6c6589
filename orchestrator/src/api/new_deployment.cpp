#include "orchestrator/api/new_deployment.hpp"

#include "common/uuid.hpp"
#include "orchestrator/api/deployment_routes.hpp"

namespace orch::api {

Result<store::NewDeployment> BuildNewDeployment(workflow::TemplateService& templates, const DeploymentDraft& draft) {
    ORCH_ASSIGN_OR_RETURN(const tosca::DeploymentSpec spec, templates.Build(draft.template_text, draft.parameters));
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
    d.kind = std::string(tosca::DeploymentKindName(spec.kind));
    SummariseRequest(spec, d.req_cpus, d.req_mem_mb, d.req_gpus, d.req_instances);
    created.resources = ResourcesFor(spec, d.id, d.created_at);
    return created;
}

}  // namespace orch::api
