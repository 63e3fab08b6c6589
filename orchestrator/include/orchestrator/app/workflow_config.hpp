#pragma once

#include "common/config.hpp"
#include "orchestrator/workflow/deployment_steps.hpp"
#include "orchestrator/workflow/engine.hpp"

namespace orch::app {

/// `workflow.*`: workers, lease, idle_poll, first_poll, max_poll, transient_retries,
/// callback_retries, callback_timeout, callback_max_backoff, callback_max_age,
/// default_provider_timeout_mins. Errors name the key.
Status ParseWorkflowConfig(const ConfigTree& tree, workflow::EngineOptions& engine, workflow::StepOptions& steps);

}  // namespace orch::app
