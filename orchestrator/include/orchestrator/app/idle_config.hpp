#pragma once

#include "common/config.hpp"
#include "monitoring/gpu_utilisation.hpp"
#include "orchestrator/workflow/idle_reclaimer.hpp"

#include <chrono>
#include <set>
#include <string>

namespace orch::app {

/// `idle.*`: idle GPU reclamation (docs/lifecycle.md, "Idle GPU reclamation").
struct IdleConfig {
    bool enabled = false;  ///< the sweep runs at all (also needs prometheus_url)
    std::string prometheus_url;
    std::chrono::milliseconds prometheus_timeout{5'000};
    monitoring::GpuUtilisationOptions series;
    workflow::IdlePolicies policies;
    workflow::IdleReclaimerOptions reclaimer;
};

/// Parses `idle.*`; `idle.groups.<group>.*` override the defaults per group. Errors name the key.
Result<IdleConfig> ParseIdleConfig(const ConfigTree& tree);

/// The keys ParseIdleConfig reads (KnownConfigKeys' form).
std::set<std::string> IdleConfigKeys();

}  // namespace orch::app
