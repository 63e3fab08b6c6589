#include "orchestrator/workflow/elastic_policy.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace orch::workflow {
namespace {

bool Held(const std::optional<ElasticTime>& since, ElasticTime now, std::chrono::milliseconds sustain) {
    return since && now - *since >= sustain;
}

ElasticDecision Move(ElasticDecision d, int target, ElasticTime now, std::string reason) {
    d.action = target > d.target ? ElasticAction::kScaleOut : ElasticAction::kScaleIn;
    d.target = target;
    d.reason = std::move(reason);
    d.memory.last_scale = now;
    // A new count starts a new observation: the level that caused it must hold again.
    d.memory.high_since.reset();
    d.memory.low_since.reset();
    return d;
}

// Workers wanted for the queue beyond the threshold, at least one, at most one step.
int OutStep(const ElasticSettings& s, double queue) {
    const double per_worker = s.jobs_per_worker > 0 ? s.jobs_per_worker : 1;
    const double wanted = std::ceil((queue - s.scale_out_above) / per_worker);
    // Clamped as a double: a huge queue must not overflow the conversion.
    return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(1, s.max_step))));
}

std::string Number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

}  // namespace

std::string_view ElasticActionName(ElasticAction action) {
    switch (action) {
        case ElasticAction::kScaleOut:
            return "scale_out";
        case ElasticAction::kScaleIn:
            return "scale_in";
        case ElasticAction::kHold:
            break;
    }
    return "hold";
}

ElasticDecision DecideElastic(
    const ElasticSettings& settings, const ElasticInput& in, const ElasticMemory& memory, ElasticTime now
) {
    ElasticDecision d;
    d.target = in.current;
    d.memory = memory;
    const int low = std::max(0, in.min);
    const int high = std::max(low, in.max);
    // Remember since when the signal has been on one side; a value in the dead band between the
    // thresholds (or NaN) clears both, so only an uninterrupted run counts.
    if (in.queue > settings.scale_out_above) {
        d.memory.low_since.reset();
        if (!d.memory.high_since) {
            d.memory.high_since = now;
        }
    } else if (in.queue <= settings.scale_in_below) {
        d.memory.high_since.reset();
        if (!d.memory.low_since) {
            d.memory.low_since = now;
        }
    } else {
        d.memory.high_since.reset();
        d.memory.low_since.reset();
    }
    if (in.current < low) {
        return Move(std::move(d), low, now, "below the minimum of " + std::to_string(low) + " workers");
    }
    if (in.current > high) {
        return Move(std::move(d), high, now, "above the maximum of " + std::to_string(high) + " workers");
    }
    if (memory.last_scale && now - *memory.last_scale < settings.cooldown) {
        d.reason = "cooling down after the last scale";
        return d;
    }
    const int step = std::max(1, settings.max_step);
    if (Held(d.memory.high_since, now, settings.sustain)) {
        if (in.current >= high) {
            d.reason = "queue high but at the maximum of " + std::to_string(high) + " workers";
            return d;
        }
        const int target = std::min(high, in.current + OutStep(settings, in.queue));
        return Move(std::move(d), target, now, "queue above " + Number(settings.scale_out_above));
    }
    if (Held(d.memory.low_since, now, settings.sustain)) {
        if (in.current <= low) {
            d.reason = "queue drained and at the minimum of " + std::to_string(low) + " workers";
            return d;
        }
        const int target = std::max(low, in.current - step);
        return Move(std::move(d), target, now, "queue at or below " + Number(settings.scale_in_below));
    }
    d.reason = "waiting for the level to hold";
    return d;
}

}  // namespace orch::workflow
