#pragma once

#include "common/clock.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/jws_algorithm.hpp"
#include "orchestrator/auth/public_key.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::auth {

/// One issuer's signing keys (its JWKS), cached. Lookups of known keys take a short lock and never
/// wait for the network. A refresh happens when a `kid` is unknown or the set is older than
/// `max_age`; refreshes are rate-limited (`min_refresh_interval`), single-flight (concurrent misses
/// share one fetch and wait for it) and a failed refresh keeps the keys we had.
class IssuerKeys {
   public:
    using Fetch = std::function<Result<KeySet>()>;

    struct Options {
        std::chrono::seconds min_refresh_interval{30};
        std::chrono::seconds max_age{3600};
        std::chrono::milliseconds wait_timeout{10'000};  ///< how long a miss waits for a running fetch
    };

    /// Ages and refresh intervals are read from `clock` (steady time), which must outlive this.
    IssuerKeys(std::string issuer, Fetch fetch, Options options, const Clock& clock);

    /// Candidate keys for a token: the key with `kid` (or, without a kid, every key) that can
    /// verify `alg`. kUnauthenticated when no such key exists even after a refresh;
    /// kUnavailable when the issuer's keys could never be fetched.
    Result<std::vector<PublicKeyPtr>> Find(const std::optional<std::string>& kid, JwsAlgorithm alg);

    /// Number of fetch attempts so far (for tests and metrics).
    std::uint64_t fetch_count() const;

    /// Changes whenever a fetch replaces the key set: what was verified under another version
    /// may have been signed by a key since withdrawn.
    std::uint64_t key_set_version() const { return key_set_version_.load(std::memory_order_acquire); }

   private:
    std::vector<PublicKeyPtr> Lookup(const std::optional<std::string>& kid, JwsAlgorithm alg, bool& stale) const;
    /// Fetches unless rate-limited; waits instead when another thread is fetching.
    void Refresh(bool unknown_kid);

    const std::string issuer_;
    const Fetch fetch_;
    const Options options_;
    const Clock& clock_;

    mutable std::mutex mutex_;
    std::condition_variable fetched_;
    std::vector<PublicKeyPtr> keys_;
    std::optional<Clock::SteadyTime> loaded_at_;
    std::optional<Clock::SteadyTime> last_attempt_;
    std::string last_error_;
    bool in_flight_ = false;
    std::uint64_t generation_ = 0;
    std::uint64_t fetches_ = 0;
    std::atomic<std::uint64_t> key_set_version_{0};
};

}  // namespace orch::auth
