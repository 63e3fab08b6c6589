#pragma once

#include "common/result.hpp"
#include "orchestrator/api/api_context.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/workflow/admission.hpp"
#include "tosca/deployment_spec.hpp"

#include <vector>

namespace orch::api {

/// Before an update or scale is accepted: placement's checks (capacity, GPUs, quotas) for the
/// site the deployment runs on, with the updated spec. 409 when that site cannot hold a growth,
/// with the per-site reasons the dry run gives for it; no refusal when placement is not
/// configured, the deployment has no site yet, or the catalogue no longer lists its service (the
/// workflow then decides, as before).
///
/// Returns the update's change of quota claims (workflow::UpdateClaims of `before` and `after`
/// under the same decision: the group and user quotas and the SLA quotas of the deployment's
/// service), which BeginUpdate reserves atomically; empty when the resources do not change,
/// placement cannot run or `before` (the stored spec) is unknown.
Result<std::vector<workflow::QuotaClaim>> AdmitUpdate(
    ApiContext& ctx,
    const domain::Deployment& d,
    const tosca::DeploymentSpec* before,
    const tosca::DeploymentSpec& after
);

}  // namespace orch::api
