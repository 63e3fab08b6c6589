#pragma once

#include <chrono>

namespace orch::workflow {

/// How running deployments are watched and healed (self_healing.* keys, docs/lifecycle.md
/// "Self-healing").
struct SelfHealOptions {
    /// Whether a deployment whose request did not say `selfHealing` is redeployed when lost.
    bool default_enabled = false;
    /// Between two health polls of one running deployment (the `health` side job); 0: not watched.
    std::chrono::milliseconds check_interval{60'000};
    /// How long a site may fail to answer the health poll before its deployment counts as lost.
    std::chrono::milliseconds lost_after{300'000};
    /// Longest wait between two tries to delete what a lost deployment left on its old site...
    std::chrono::milliseconds cleanup_max_backoff{300'000};
    /// ...and how long it keeps trying (a site that never comes back).
    std::chrono::milliseconds cleanup_max_age{std::chrono::hours(24 * 30)};
};

}  // namespace orch::workflow
