#pragma once

#include "common/result.hpp"
#include "orchestrator/api/api_context.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "tosca/deployment_spec.hpp"

namespace orch::api {

/// Before an update or scale is accepted: placement's checks (capacity, GPUs, quotas) for the
/// site the deployment runs on, with the updated spec. 409 when that site cannot hold it, with
/// the per-site reasons the dry run gives for it; no refusal when placement is not configured,
/// the deployment has no site yet, or the catalogue no longer lists its service (the workflow
/// then decides, as before).
Status CheckUpdateFitsSite(ApiContext& ctx, const domain::Deployment& d, const tosca::DeploymentSpec& spec);

}  // namespace orch::api
