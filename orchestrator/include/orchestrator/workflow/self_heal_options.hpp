#pragma once

#include <chrono>
#include <map>
#include <string>

namespace orch::workflow {

/// How running deployments are watched and healed (self_healing.* keys, docs/lifecycle.md
/// "Self-healing").
struct SelfHealOptions {
    /// Whether a deployment whose request did not say `selfHealing` is redeployed when lost.
    bool default_enabled = false;
    /// A group's own word from the SLA file (`<group>.self_healing.enabled`), between the
    /// request's `selfHealing` and default_enabled.
    std::map<std::string, bool> enabled_by_group;
    /// Between two health polls of one running deployment (the `health` side job); 0: not watched.
    std::chrono::milliseconds check_interval{60'000};
    /// How long a site may fail to answer the health poll before its deployment counts as lost.
    std::chrono::milliseconds lost_after{300'000};
    /// How long the monitoring feed may mark the deployment's site (or its service) down before
    /// the deployment counts as lost, even while the site's API still answers the poll; 0: the
    /// feed is not read (a probe failing says a site cannot create, not always that it lost
    /// what runs there, so the operator opts in).
    std::chrono::milliseconds site_down_after{0};
    /// Longest wait between two tries to delete what a lost deployment left on its old site...
    std::chrono::milliseconds cleanup_max_backoff{300'000};
    /// ...and how long it keeps trying (a site that never comes back).
    std::chrono::milliseconds cleanup_max_age{std::chrono::hours(24 * 30)};
};

}  // namespace orch::workflow
