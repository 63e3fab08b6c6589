#pragma once

#include "cmdb/sla.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>

namespace orch::cmdb {

/// The SLAs last read per key (a SLAM group; an issuer and group for the Federation Registry),
/// with when they were read: the sources answer from it within their TTL and fall back to it when
/// the remote cannot be reached. At most `capacity` keys: a new key beyond that pushes out the one
/// read longest ago, so callers naming ever new groups cannot grow it without bound. Not
/// thread-safe (the sources hold their own lock around it).
template <class Key>
class SlaCache {
   public:
    struct Entry {
        std::shared_ptr<const SlaSet> slas;
        std::chrono::system_clock::time_point fetched_at;
    };

    explicit SlaCache(std::size_t capacity) : capacity_(capacity) {}

    /// The entry for `key`, or nullptr; valid until `key` is remembered again or forgotten.
    const Entry* Find(const Key& key) const {
        const auto found = entries_.find(key);
        return found == entries_.end() ? nullptr : &found->second;
    }

    void Remember(const Key& key, Entry entry) {
        if (capacity_ == 0) {
            return;
        }
        if (entries_.size() >= capacity_ && entries_.count(key) == 0) {
            // A linear scan: eviction happens once per new group past the bound, beside an HTTP
            // round trip, so an age index would cost more than it saves.
            auto oldest = entries_.begin();
            for (auto it = entries_.begin(); it != entries_.end(); ++it) {
                if (it->second.fetched_at < oldest->second.fetched_at) {
                    oldest = it;
                }
            }
            entries_.erase(oldest);
        }
        entries_[key] = std::move(entry);
    }

    void Forget(const Key& key) { entries_.erase(key); }

    std::size_t size() const { return entries_.size(); }

   private:
    std::size_t capacity_;
    std::map<Key, Entry> entries_;
};

}  // namespace orch::cmdb
