#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/server/router.hpp"

namespace orch::api {

/// /deployments and /deployments/{id}: list, create, get, update, reset, delete (contract §3.4–3.9).
void RegisterDeploymentRoutes(server::Router& router, ApiContext& ctx);

/// /deployments/{id}/{log,extrainfo,template,resources...} and actions (contract §3.10–3.16).
void RegisterResourceRoutes(server::Router& router, ApiContext& ctx);

/// One resource row per node instance of `spec` (count from scalable, default 1), state INITIAL.
std::vector<domain::Resource> ResourcesFor(const tosca::DeploymentSpec& spec, const std::string& deployment_id,
                                           domain::TimePoint now);

/// Requested cpus/memory/GPUs/instances summed over workload instances (quota bookkeeping).
void SummariseRequest(const tosca::DeploymentSpec& spec, double& cpus, std::int64_t& mem_mb, int& gpus, int& instances);

}  // namespace orch::api
