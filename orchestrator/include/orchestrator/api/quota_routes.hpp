#pragma once

#include "orchestrator/api/api_context.hpp"
#include "orchestrator/placement/placement_options.hpp"
#include "orchestrator/server/router.hpp"
#include "orchestrator/workflow/idle_store.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

namespace orch::api {

/// What GET /quotas reads beyond the deployment API's context.
struct QuotaApi {
    ApiContext& api;
    workflow::WorkflowStore& workflow;  ///< quota counters and the admission queue
    workflow::IdleStore& idle;          ///< reclaimed GPU-hours
    placement::QuotaOptions quotas;     ///< configured limits (placement.quotas)
};

/// GET /quotas (docs/api.md): per group of the caller (admins: every group of their issuer) the
/// configured limits, what admitted deployments use and hold reserved, what waits in the
/// admission queue, the same per site (service), and the GPU-hours idle reclamation gave back.
void RegisterQuotaRoutes(server::Router& router, QuotaApi& ctx);

}  // namespace orch::api
