#pragma once

// Keyset anchors for deep pages of the deployment list (issue 23). An OFFSET walks every skipped
// index entry, so page 9,000 of 100,000 walks 10,000 entries even from the nearer end; from an
// anchor (the sort key of the row at a known offset) the same page walks at most kMaxWalk.
// An anchor is used only inside a statement that checks, in its own snapshot, that the scope's
// change marker (migration 0019) still has the value the anchor was read under, so a stale
// anchor is never used: the statement then reads the page the old way.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace orch::store {

/// The key of the row at `offset` of one list scope, read when the marker was `generation`.
struct ListAnchor {
    std::int64_t generation = -1;
    std::int64_t offset = 0;
    std::string created_at;  ///< PostgreSQL's own text of the row's created_at (exact to the µs)
    std::string id;
};

/// Anchors per scope (filters, their values and the sort), bounded in scopes and anchors; shared
/// by a store's pool threads.
class ListCursorCache {
   public:
    static constexpr std::size_t kMaxScopes = 256;
    static constexpr std::size_t kMaxAnchorsPerScope = 64;
    static constexpr std::int64_t kMaxWalk = 1000;  ///< rows an anchor may be walked past

    /// The nearest anchor at or before `offset` within kMaxWalk rows, if any.
    std::optional<ListAnchor> Nearest(const std::string& scope, std::int64_t offset) const;

    /// Keeps `anchor`; a newer generation drops the scope's older anchors, an older one is ignored.
    void Remember(const std::string& scope, ListAnchor anchor);

   private:
    struct Scope {
        std::int64_t generation = -1;
        std::map<std::int64_t, ListAnchor> by_offset;
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Scope> scopes_;
};

}  // namespace orch::store
