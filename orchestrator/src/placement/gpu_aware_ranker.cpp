#include "gpu_aware_ranker.hpp"

#include "radix_sort.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace orch::placement {
namespace {

// The sort key, copied out of the evaluation.
struct Scored {
    bool breaker_open;
    double weight;
    double score;
    std::uint32_t id_order;  ///< the universe's order of service ids: distinct per service
    std::uint32_t index;     ///< in the accepted list as it came
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
    return {open, eval.weight().value_or(0), eval.score, eval.id_order(), index};
}

constexpr double kScoreSteps = 1e6;      // scores are rounded to 1e-6 (Round)
constexpr int kScoreBits = 20;           // 1e6 < 2^20
constexpr std::size_t kMaxWeights = 16;  // found by linear search per service

// Orders `scored` as the comparison in RankGpuAware would, with one integer key per service:
// breaker, then the rank of its SLA weight among the distinct weights, then the score, then the
// id order. False (nothing done) when a key cannot hold them: more distinct weights than
// kMaxWeights, or a score outside [0, 1] (weights are non-negative, so it never is).
bool SortByKeys(std::vector<Scored>& scored) {
    std::vector<double> weights;
    std::uint32_t max_id = 0;
    for (const auto& s : scored) {
        if (std::find(weights.begin(), weights.end(), s.weight) == weights.end()) {
            if (weights.size() == kMaxWeights) {
                return false;
            }
            weights.push_back(s.weight);
        }
        if (!(s.score >= 0 && s.score <= 1)) {
            return false;
        }
        max_id = std::max(max_id, s.id_order);
    }
    std::sort(weights.begin(), weights.end(), std::greater<>());
    const int id_bits = BitWidth(max_id);
    const int weight_bits = BitWidth(weights.size() - 1);
    std::vector<KeyedIndex> keys;
    keys.reserve(scored.size());
    for (std::uint32_t i = 0; i < scored.size(); ++i) {
        const auto& s = scored[i];
        const auto weight_rank = static_cast<std::uint64_t>(
            std::lower_bound(weights.begin(), weights.end(), s.weight, std::greater<>()) - weights.begin()
        );
        const auto score_rank =
            static_cast<std::uint64_t>(kScoreSteps) - static_cast<std::uint64_t>(std::llround(s.score * kScoreSteps));
        std::uint64_t key = s.breaker_open ? 1 : 0;
        key = (key << weight_bits) | weight_rank;
        key = (key << kScoreBits) | score_rank;
        key = (key << id_bits) | s.id_order;
        keys.push_back({key, i});
    }
    RadixSort(keys, 1 + weight_bits + kScoreBits + id_bits);
    std::vector<Scored> sorted;
    sorted.reserve(scored.size());
    for (const auto& k : keys) {
        sorted.push_back(scored[k.index]);
    }
    scored = std::move(sorted);
    return true;
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
    std::vector<Scored> scored;
    scored.reserve(accepted.size());
    for (std::size_t i = 0; i < accepted.size(); ++i) {
        auto* eval = accepted[i];
        const auto it = history_of.empty() ? history_of.end() : history_of.find(eval->service_id());
        scored.push_back(
            Score(*eval, static_cast<std::uint32_t>(i), it == history_of.end() ? none : it->second, options, now)
        );
    }
    if (!SortByKeys(scored)) {
        std::sort(scored.begin(), scored.end(), [&accepted](const Scored& a, const Scored& b) {
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
            return accepted[a.index]->service_id() < accepted[b.index]->service_id();
        });
    }
    std::vector<Evaluation*> ranked;
    ranked.reserve(accepted.size());
    for (const auto& s : scored) {
        ranked.push_back(accepted[s.index]);
    }
    accepted = std::move(ranked);
}

}  // namespace orch::placement
