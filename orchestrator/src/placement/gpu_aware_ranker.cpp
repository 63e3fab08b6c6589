#include "gpu_aware_ranker.hpp"

#include <algorithm>
#include <cmath>

namespace orch::placement {
namespace {

// The sort key is copied next to the pointer: sorting thousands of services then compares
// contiguous values instead of chasing each evaluation through memory.
struct Scored {
    bool breaker_open;
    double weight;
    double score;
    std::uint32_t id_order;  ///< the universe's order of service ids (0 for hand-made evaluations)
    std::string_view service_id;
    Evaluation* eval;
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
    Evaluation& eval,
    const std::vector<AttemptOutcome>& attempts,
    const PlacementOptions& options,
    std::chrono::system_clock::time_point now
) {
    const auto& w = options.weights;
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
    return {open, eval.weight.value_or(0), eval.score, eval.id_order, eval.service_id, &eval};
}

}  // namespace

void RankGpuAware(
    std::vector<Evaluation*>& accepted,
    SiteHistory& history,
    const PlacementOptions& options,
    std::chrono::system_clock::time_point now
) {
    std::vector<std::string_view> ids;
    ids.reserve(accepted.size());
    for (const auto* eval : accepted) {
        ids.push_back(eval->service_id);
    }
    // One read of the history for every accepted service, not one store query per service.
    const auto history_of = history.RecentAttemptsOf(ids, std::max(options.breaker.history, options.breaker.failures));
    const std::vector<AttemptOutcome> none;
    std::vector<Scored> scored;
    scored.reserve(accepted.size());
    for (auto* eval : accepted) {
        const auto it = history_of.empty() ? history_of.end() : history_of.find(eval->service_id);
        scored.push_back(Score(*eval, it == history_of.end() ? none : it->second, options, now));
    }
    std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
        if (a.breaker_open != b.breaker_open) {
            return !a.breaker_open;
        }
        if (a.weight != b.weight) {
            return a.weight > b.weight;
        }
        if (a.score != b.score) {
            return a.score > b.score;
        }
        if (a.id_order != b.id_order) {
            return a.id_order < b.id_order;
        }
        return a.service_id < b.service_id;
    });
    for (std::size_t i = 0; i < scored.size(); ++i) {
        accepted[i] = scored[i].eval;
    }
}

}  // namespace orch::placement
