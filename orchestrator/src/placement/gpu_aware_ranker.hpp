#pragma once

#include "evaluation.hpp"
#include "orchestrator/placement/usage.hpp"

#include <chrono>
#include <vector>

namespace orch::placement {

/// Scores every accepted service and sorts them best first:
/// 1. services whose circuit breaker is open (their last attempts failed) go last;
/// 2. higher SLA weight first;
/// 3. higher score = Σ weight × component, components in [0, 1]: fit, availability (up 1,
///    unknown 0.5), success rate ((successes + 1) / (attempts + 2)) and latency (1 / (1 + s));
/// 4. ties: smaller service id first.
/// Fills eval.score and eval.breakdown (every component, the weights and the breaker state).
void RankGpuAware(
    std::vector<Evaluation*>& accepted,
    SiteHistory& history,
    const PlacementOptions& options,
    std::chrono::system_clock::time_point now
);

}  // namespace orch::placement
