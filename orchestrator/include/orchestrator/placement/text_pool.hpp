#pragma once

#include "orchestrator/placement/shared_text.hpp"

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace orch::placement {

/// Texts kept for the life of the process, each once, so a `SharedText` made from one needs no
/// owner (its owner is null: the only texts given a null owner are these and literals), and
/// copying it counts no reference. Every placement gives thousands of verdicts the names
/// of their sites (provider id and name, service id and type); shared with the catalogue, each
/// verdict counted four references up and down (0.3–2.4 ms of a 4–6 ms placement of 10,000
/// sites, bench/NOTES.md). The names are interned once per catalogue version instead
/// (ResolveSiteUniverse), and stay: a site's names rarely change, so the pool grows with the
/// distinct names the catalogue has ever had, up to a bound; past it, texts own a copy of their
/// own (counted again, never invalid).
class TextPool {
   public:
    static constexpr std::size_t kMaxBytes = std::size_t{16} << 20;

    /// A pool must outlive every text it interned: use Process(), which is never destroyed.
    explicit TextPool(std::size_t max_bytes) : max_bytes_(max_bytes) {}
    TextPool(const TextPool&) = delete;
    TextPool& operator=(const TextPool&) = delete;

    /// The process's pool (verdicts made from it may outlive every placer).
    static TextPool& Process();

    /// `text` as a text with no owner (the pool's copy, made the first time); a text that owns
    /// a copy when the pool is full. Thread-safe.
    SharedText Intern(std::string_view text);
    /// What the pool holds, counted as its bound counts it (texts plus bookkeeping).
    std::size_t bytes() const;

   private:
    /// What one more entry costs beside its characters: the string object and the set's node.
    static constexpr std::size_t kEntryOverhead = sizeof(std::string) + 48;

    mutable std::mutex mutex_;
    std::deque<std::string> storage_;  ///< a deque never moves its elements: views stay valid
    std::unordered_set<std::string_view> index_;
    std::size_t bytes_ = 0;
    std::size_t max_bytes_;
};

}  // namespace orch::placement
