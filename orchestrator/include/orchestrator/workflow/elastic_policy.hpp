#pragma once

// The decision of an elastic cluster's controller, as a pure function of the cluster's queue
// signal, its worker count and what was remembered from earlier sweeps. No I/O and no clock of
// its own: the sweep passes `now` (from Clock) and stores the returned memory, so a decision
// survives restarts and any replica may take the next sweep.
#include <chrono>
#include <optional>
#include <string>

namespace orch::workflow {

using ElasticTime = std::chrono::system_clock::time_point;

/// Operator defaults (config `elastic.*`), per group overridable from the SLA file.
struct ElasticSettings {
    double scale_out_above = 0;                                   ///< queue > this (sustained) asks for more workers
    double scale_in_below = 0;                                    ///< queue <= this (sustained) lets workers go
    double jobs_per_worker = 1;                                   ///< queued jobs one new worker is expected to take
    int max_step = 1;                                             ///< workers added or removed by one decision, at most
    std::chrono::milliseconds sustain{std::chrono::seconds(60)};  ///< how long a level must hold
    std::chrono::milliseconds cooldown{std::chrono::seconds(300)};  ///< quiet time after a scale
};

/// What the previous sweeps saw, durable between sweeps (table elastic_state).
struct ElasticMemory {
    std::optional<ElasticTime> high_since;  ///< first sweep of the current run of queue > scale_out_above
    std::optional<ElasticTime> low_since;   ///< first sweep of the current run of queue <= scale_in_below
    std::optional<ElasticTime> last_scale;  ///< when this controller last asked for a new count

    bool operator==(const ElasticMemory&) const = default;
};

enum class ElasticAction { kHold, kScaleOut, kScaleIn };
std::string_view ElasticActionName(ElasticAction action);  ///< "hold", "scale_out", "scale_in"

struct ElasticDecision {
    ElasticAction action = ElasticAction::kHold;
    int target = 0;      ///< the worker count to ask for (== current when holding)
    std::string reason;  ///< why, for the event and the log
    ElasticMemory memory;
};

struct ElasticInput {
    int current = 0;  ///< live workers
    int min = 0;
    int max = 0;
    double queue = 0;  ///< the signal's value now
};

/// Hysteresis: a level must hold for `sustain` before it counts, and nothing moves within
/// `cooldown` of the last scale, so a queue oscillating around a threshold does not flap the
/// cluster. Steps are at most `max_step` workers; the target is always within [min, max] (a
/// count outside the bounds is brought back first, without waiting).
ElasticDecision DecideElastic(
    const ElasticSettings& settings, const ElasticInput& input, const ElasticMemory& memory, ElasticTime now
);

}  // namespace orch::workflow
