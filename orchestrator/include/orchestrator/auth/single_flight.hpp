#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

namespace orch::auth {

/// Collapses concurrent identical calls: the first caller for a key leads (does the work and
/// calls Done), later callers wait for it (bounded) and then re-read the cache the leader filled.
/// A dashboard that fires several API calls with a brand-new token thus costs one introspection.
class SingleFlight {
   public:
    /// True: the caller leads and must call Done(key). False: another caller led and finished
    /// (or the wait timed out); the caller re-checks its cache and may do the work itself.
    bool Lead(const std::string& key, std::chrono::milliseconds max_wait) {
        std::unique_lock lock(mutex_);
        if (running_.insert(key).second) {
            return true;
        }
        done_.wait_for(lock, max_wait, [&] { return running_.count(key) == 0; });
        return false;
    }

    void Done(const std::string& key) {
        {
            const std::lock_guard lock(mutex_);
            running_.erase(key);
        }
        done_.notify_all();
    }

   private:
    std::mutex mutex_;
    std::condition_variable done_;
    std::set<std::string> running_;
};

}  // namespace orch::auth
