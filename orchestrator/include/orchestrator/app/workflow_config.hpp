#pragma once

#include "common/config.hpp"
#include "orchestrator/workflow/deployment_steps.hpp"
#include "orchestrator/workflow/engine.hpp"
#include "orchestrator/workflow/site_watcher.hpp"

namespace orch::app {

/// `workflow.*`: workers, lease, idle_poll, first_poll, max_poll, transient_retries,
/// callback_retries, callback_timeout, callback_max_backoff, callback_max_age,
/// default_provider_timeout_mins. Errors name the key.
Status ParseWorkflowConfig(const ConfigTree& tree, workflow::EngineOptions& engine, workflow::StepOptions& steps);

/// `workflow.site_watch` (on by default), `workflow.site_watch_max_sites`,
/// `workflow.site_watch_stream_life`, `workflow.site_watch_max_backoff`: prompt completion from
/// the sites' change notifications (SiteWatcher).
Result<workflow::SiteWatchOptions> ParseSiteWatchConfig(const ConfigTree& tree);

}  // namespace orch::app
