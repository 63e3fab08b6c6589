#include "orchestrator/store/list_cursor_cache.hpp"

#include <iterator>
#include <utility>

namespace orch::store {

std::optional<ListAnchor> ListCursorCache::Nearest(const std::string& scope, std::int64_t offset) const {
    const std::lock_guard lock(mutex_);
    const auto found = scopes_.find(scope);
    if (found == scopes_.end()) {
        return std::nullopt;
    }
    const auto& anchors = found->second.by_offset;
    auto after = anchors.upper_bound(offset);
    if (after == anchors.begin()) {
        return std::nullopt;
    }
    const ListAnchor& anchor = std::prev(after)->second;
    if (offset - anchor.offset > kMaxWalk) {
        return std::nullopt;
    }
    return anchor;
}

void ListCursorCache::Remember(const std::string& scope, ListAnchor anchor) {
    const std::lock_guard lock(mutex_);
    auto found = scopes_.find(scope);
    if (found == scopes_.end()) {
        // Bounded by dropping everything: scopes are cheap to refill (one page read each).
        if (scopes_.size() >= kMaxScopes) {
            scopes_.clear();
        }
        found = scopes_.emplace(scope, Scope{}).first;
    }
    Scope& s = found->second;
    if (anchor.generation < s.generation) {
        return;  // read before a change another request has already seen
    }
    if (anchor.generation > s.generation) {
        s.by_offset.clear();
        s.generation = anchor.generation;
    }
    if (s.by_offset.size() >= kMaxAnchorsPerScope && !s.by_offset.contains(anchor.offset)) {
        s.by_offset.clear();
    }
    const std::int64_t offset = anchor.offset;
    s.by_offset.insert_or_assign(offset, std::move(anchor));
}

}  // namespace orch::store
