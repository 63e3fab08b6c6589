#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/service/deployment_limits.hpp"
#include "orchestrator/store/deployment_store.hpp"
#include "orchestrator/workflow/template_service.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Making a deployment, shared by POST /deployments (api) and schedule events (schedule); below both,
// and free of HTTP.
namespace orch::service {

/// What a new deployment is made of, whoever asks for it (POST /deployments, a schedule event).
struct DeploymentDraft {
    std::string template_text;
    Json parameters = Json::object();
    std::string callback;
    domain::RequestOptions options;
    std::string user_group;
    std::optional<domain::Owner> owner;
    /// The parameters were accepted earlier (a schedule's, checked when it was created): not
    /// refused again as naming no input (TemplateService::Build).
    bool parameters_accepted = false;
};

/// 400 naming the limit when `spec` asks for more node instances in all than `limits` allow.
/// Checked on create (POST, schedule events) and update (PUT scaling) before anything is built
/// or stored: a template may ask for millions of instances in a few bytes.
Status CheckInstanceCap(const tosca::DeploymentSpec& spec, const DeploymentLimits& limits);

/// Validates the template with its parameters (the 400s of POST /deployments, the instance cap)
/// and assembles the deployment row and its resources as POST /deployments stores them:
/// CREATE_IN_PROGRESS, a sequential id, one resource per node instance. Storing it queues the
/// deploy workflow. `now` is its creation time (and the start of its timeout).
Result<store::NewDeployment> BuildNewDeployment(
    workflow::TemplateService& templates,
    const DeploymentDraft& draft,
    const DeploymentLimits& limits,
    domain::TimePoint now
);

/// One resource row per node instance of `spec` (count from scalable, default 1), state INITIAL.
std::vector<domain::Resource> ResourcesFor(
    const tosca::DeploymentSpec& spec, const std::string& deployment_id, domain::TimePoint now
);

/// Requested cpus/memory/GPUs/instances summed over workload instances (quota bookkeeping).
void SummariseRequest(const tosca::DeploymentSpec& spec, double& cpus, std::int64_t& mem_mb, int& gpus, int& instances);

}  // namespace orch::service
