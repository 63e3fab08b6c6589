#include "orchestrator/service/new_deployment.hpp"

#include "common/uuid.hpp"
#include "orchestrator/placement/usage.hpp"

#include <algorithm>

namespace orch::service {

Status CheckInstanceCap(const tosca::DeploymentSpec& spec, const DeploymentLimits& limits) {
    std::int64_t instances = 0;  // 64-bit: node count x per-node count overflows an int
    for (const auto& node : spec.nodes) {
        instances += std::max(0, node.count);
    }
    if (instances > limits.max_instances) {
        return Error::InvalidArgument(
            "The template asks for " + std::to_string(instances) + " node instances; a deployment may have at most " +
            std::to_string(limits.max_instances) + " (deployments.max_instances)"
        );
    }
    return Ok();
}

Result<store::NewDeployment> BuildNewDeployment(
    workflow::TemplateService& templates,
    const DeploymentDraft& draft,
    const DeploymentLimits& limits,
    domain::TimePoint now
) {
    const Json& accepted = draft.parameters_accepted ? draft.parameters : workflow::NoAcceptedParameters();
    ORCH_ASSIGN_OR_RETURN(
        const tosca::DeploymentSpec spec, templates.Build(draft.template_text, draft.parameters, accepted)
    );
    ORCH_RETURN_IF_ERROR(CheckInstanceCap(spec, limits));
    store::NewDeployment created;
    domain::Deployment& d = created.deployment;
    d.id = SequentialUuid();
    d.created_at = now;
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

std::vector<domain::Resource> ResourcesFor(
    const tosca::DeploymentSpec& spec, const std::string& deployment_id, domain::TimePoint now
) {
    std::vector<domain::Resource> out;
    for (const auto& node : spec.nodes) {
        for (int i = 0; i < std::max(0, node.count); ++i) {
            domain::Resource r;
            r.id = SequentialUuid();
            r.deployment_id = deployment_id;
            r.created_at = now;
            r.updated_at = now;
            r.node_type = node.type;
            r.node_name = node.name;
            r.type_chain = node.type_chain.empty() ? std::vector<std::string>{node.type} : node.type_chain;
            r.instance_index = i;
            out.push_back(std::move(r));
        }
    }
    return out;
}

void SummariseRequest(
    const tosca::DeploymentSpec& spec, double& cpus, std::int64_t& mem_mb, int& gpus, int& instances
) {
    // Exactly placement's definition, so stored totals and quota checks agree.
    const auto totals = placement::RequestedResources(spec);
    cpus = totals.cpus;
    mem_mb = static_cast<std::int64_t>(totals.ram_mb);
    gpus = totals.gpus;
    instances = totals.instances;
}

}  // namespace orch::service
