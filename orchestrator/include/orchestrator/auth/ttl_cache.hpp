#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace orch::auth {

/// A bounded, thread-safe map whose entries expire. When full, the oldest entry goes first, so
/// memory stays bounded whatever callers send (e.g. a flood of distinct tokens).
template <typename V>
class TtlCache {
   public:
    using Clock = std::chrono::steady_clock;

    explicit TtlCache(std::size_t max_entries) : max_entries_(max_entries == 0 ? 1 : max_entries) {}

    std::optional<V> Get(const std::string& key, Clock::time_point now) {
        const std::lock_guard lock(mutex_);
        const auto it = entries_.find(key);
        if (it == entries_.end()) {
            return std::nullopt;
        }
        if (it->second.expires <= now) {
            order_.erase(it->second.order);
            entries_.erase(it);
            return std::nullopt;
        }
        return it->second.value;
    }

    void Put(const std::string& key, V value, Clock::time_point expires) {
        const std::lock_guard lock(mutex_);
        if (const auto it = entries_.find(key); it != entries_.end()) {
            order_.erase(it->second.order);
            entries_.erase(it);
        }
        while (entries_.size() >= max_entries_ && !order_.empty()) {
            entries_.erase(order_.front());
            order_.pop_front();
        }
        order_.push_back(key);
        entries_.emplace(key, Entry{std::move(value), expires, std::prev(order_.end())});
    }

    void Erase(const std::string& key) {
        const std::lock_guard lock(mutex_);
        if (const auto it = entries_.find(key); it != entries_.end()) {
            order_.erase(it->second.order);
            entries_.erase(it);
        }
    }

    std::size_t size() const {
        const std::lock_guard lock(mutex_);
        return entries_.size();
    }

   private:
    struct Entry {
        V value;
        Clock::time_point expires;
        std::list<std::string>::iterator order;
    };

    const std::size_t max_entries_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
    std::list<std::string> order_;  // oldest first
};

}  // namespace orch::auth
