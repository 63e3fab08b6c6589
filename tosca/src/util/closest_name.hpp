#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// Bounds of a "did you mean" search: names longer than kMaxNameBytes are never compared (a
/// user's 1 MB key costs nothing), and at most kMaxCandidates candidates are looked at.
inline constexpr std::size_t kMaxSuggestNameBytes = 64;
inline constexpr std::size_t kMaxSuggestCandidates = 1024;

/// Optimal-string-alignment (restricted Damerau-Levenshtein) distance between `a` and `b`,
/// ASCII letters compared case-insensitively, or nullopt when it exceeds `cutoff`. A row whose
/// smallest value passes the cutoff stops the work early.
std::optional<std::size_t> BoundedEditDistance(std::string_view a, std::string_view b, std::size_t cutoff);

/// The candidate nearest to `name` within a cutoff that grows with the name's length (1 edit up
/// to 4 bytes, 2 up to 8, then 3): ties go to the earlier candidate. nullopt when nothing is close.
std::optional<std::string> ClosestName(std::string_view name, const std::vector<std::string_view>& candidates);

}  // namespace orch::tosca
