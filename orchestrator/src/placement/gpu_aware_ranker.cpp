#include "gpu_aware_ranker.hpp"

#include <algorithm>
#include <cmath>

namespace orch::placement {
namespace {

// The sort key, copied out of the evaluation: sorting thousands of services then compares and
// moves 24 contiguous bytes each instead of chasing evaluations through memory. Services whose
// circuit breaker is open are sorted apart (they all come last).
struct Scored {
    double weight;
    double score;
    std::uint32_t id_order;  ///< the universe's order of service ids: distinct per service
    std::uint32_t index;     ///< in the accepted list as it came
};

struct ScoredOne {
    Scored key;
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

ScoredOne Score(
    Evaluation& eval,
    std::uint32_t index,
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
        eval.weight(),
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
    return {{eval.weight().value_or(0), eval.score, eval.id_order(), index}, open};
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
        ids.push_back(eval->service_id());
    }
    // One read of the history for every accepted service, not one store query per service.
    const auto history_of = history.RecentAttemptsOf(ids, std::max(options.breaker.history, options.breaker.failures));
    const std::vector<AttemptOutcome> none;
    std::vector<Scored> closed;
    std::vector<Scored> open;
    closed.reserve(accepted.size());
    for (std::size_t i = 0; i < accepted.size(); ++i) {
        auto* eval = accepted[i];
        const auto it = history_of.empty() ? history_of.end() : history_of.find(eval->service_id());
        const auto scored = Score(*eval, static_cast<std::uint32_t>(i), it == history_of.end() ? none : it->second,
                                  options, now);
        (scored.breaker_open ? open : closed).push_back(scored.key);
    }
    const auto better = [&accepted](const Scored& a, const Scored& b) {
        if (a.weight != b.weight) {
            return a.weight > b.weight;
        }
        if (a.score != b.score) {
            return a.score > b.score;
        }
        if (a.id_order != b.id_order) {
            return a.id_order < b.id_order;
        }
        return accepted[a.index]->service_id() < accepted[b.index]->service_id();
    };
    std::sort(closed.begin(), closed.end(), better);
    std::sort(open.begin(), open.end(), better);
    std::vector<Evaluation*> ranked;
    ranked.reserve(accepted.size());
    for (const auto* part : {&closed, &open}) {
        for (const auto& s : *part) {
            ranked.push_back(accepted[s.index]);
        }
    }
    accepted = std::move(ranked);
}

}  // namespace orch::placement
