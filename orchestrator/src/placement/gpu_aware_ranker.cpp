#include "gpu_aware_ranker.hpp"

#include <algorithm>
#include <cmath>

namespace orch::placement {
namespace {

struct Scored {
    Evaluation* eval;
    bool breaker_open;
};

double Round(double value) {
    return std::round(value * 1e6) / 1e6;
}

bool BreakerOpen(
    const std::vector<AttemptOutcome>& attempts,
    const BreakerOptions& options,
    std::chrono::system_clock::time_point now
) {
    if (options.failures == 0 || attempts.size() < options.failures) {
        return false;
    }
    for (std::size_t i = 0; i < options.failures; ++i) {
        if (attempts[i].success) {
            return false;
        }
    }
    return now - attempts.front().at < options.cooldown;
}

Scored Score(
    Evaluation& eval, SiteHistory& history, const PlacementOptions& options, std::chrono::system_clock::time_point now
) {
    const auto& w = options.weights;
    const auto attempts =
        history.RecentAttempts(eval.service_id, std::max(options.breaker.history, options.breaker.failures));
    const auto successes =
        std::count_if(attempts.begin(), attempts.end(), [](const AttemptOutcome& a) { return a.success; });
    const double success = (static_cast<double>(successes) + 1.0) / (static_cast<double>(attempts.size()) + 2.0);
    const double availability = eval.up.has_value() ? (*eval.up ? 1.0 : 0.0) : 0.5;
    const double latency = eval.response_ms ? 1.0 / (1.0 + *eval.response_ms / 1000.0) : 0.5;
    const double fit = std::clamp(eval.fit, 0.0, 1.0);
    const double total_weight = w.fit + w.availability + w.success + w.latency;
    const double score =
        total_weight > 0
            ? (w.fit * fit + w.availability * availability + w.success * success + w.latency * latency) / total_weight
            : 0.0;
    const bool open = BreakerOpen(attempts, options.breaker, now);
    eval.score = Round(score);
    eval.breakdown = ScoreBreakdown(GpuAwareScore{
        eval.weight,
        Round(fit),
        availability,
        Round(success),
        Round(latency),
        eval.response_ms,
        attempts.size(),
        attempts.size() - static_cast<std::size_t>(successes),
        open,
        eval.score,
    });
    if (open) {
        eval.notes.push_back(
            "ranked last: its last " + std::to_string(options.breaker.failures) + " attempts failed (" +
            attempts.front().error + ")"
        );
    }
    return {&eval, open};
}

}  // namespace

void RankGpuAware(
    std::vector<Evaluation*>& accepted,
    SiteHistory& history,
    const PlacementOptions& options,
    std::chrono::system_clock::time_point now
) {
    std::vector<Scored> scored;
    scored.reserve(accepted.size());
    for (auto* eval : accepted) {
        scored.push_back(Score(*eval, history, options, now));
    }
    std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
        if (a.breaker_open != b.breaker_open) {
            return !a.breaker_open;
        }
        const double wa = a.eval->weight.value_or(0);
        const double wb = b.eval->weight.value_or(0);
        if (wa != wb) {
            return wa > wb;
        }
        if (a.eval->score != b.eval->score) {
            return a.eval->score > b.eval->score;
        }
        return a.eval->service_id < b.eval->service_id;
    });
    for (std::size_t i = 0; i < scored.size(); ++i) {
        accepted[i] = scored[i].eval;
    }
}

}  // namespace orch::placement
