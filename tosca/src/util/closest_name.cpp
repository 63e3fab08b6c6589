#include "util/closest_name.hpp"

#include <algorithm>
#include <array>

namespace orch::tosca {
namespace {

char Folded(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::size_t CutoffFor(std::string_view name) {
    if (name.size() <= 4) {
        return 1;
    }
    return name.size() <= 8 ? 2 : 3;
}

}  // namespace

std::optional<std::size_t> BoundedEditDistance(std::string_view a, std::string_view b, std::size_t cutoff) {
    if (a.size() > kMaxSuggestNameBytes || b.size() > kMaxSuggestNameBytes) {
        return std::nullopt;
    }
    const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    if (gap > cutoff) {
        return std::nullopt;
    }
    // Three rows of at most 65 cells on the stack: no allocation per comparison.
    constexpr std::size_t kRow = kMaxSuggestNameBytes + 1;
    std::array<std::size_t, kRow> before{}, previous{}, current{};
    for (std::size_t j = 0; j <= b.size(); ++j) {
        previous[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        std::size_t row_min = current[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = Folded(a[i - 1]) == Folded(b[j - 1]) ? 0 : 1;
            std::size_t best = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && Folded(a[i - 1]) == Folded(b[j - 2]) && Folded(a[i - 2]) == Folded(b[j - 1])) {
                best = std::min(best, before[j - 2] + 1);  // a transposition of two neighbours
            }
            current[j] = best;
            row_min = std::min(row_min, best);
        }
        if (row_min > cutoff) {
            return std::nullopt;
        }
        before = previous;
        previous = current;
    }
    const std::size_t distance = previous[b.size()];
    if (distance > cutoff) {
        return std::nullopt;
    }
    return distance;
}

std::optional<std::string> ClosestName(std::string_view name, const std::vector<std::string_view>& candidates) {
    std::optional<std::string> best;
    std::size_t best_distance = CutoffFor(name) + 1;
    const std::size_t count = std::min(candidates.size(), kMaxSuggestCandidates);
    for (std::size_t i = 0; i < count && best_distance > 0; ++i) {
        const auto distance = BoundedEditDistance(name, candidates[i], best_distance - 1);
        if (distance && *distance < best_distance) {  // 0: differs only in letter case
            best_distance = *distance;
            best = std::string(candidates[i]);
        }
    }
    return best;
}

}  // namespace orch::tosca
