#pragma once

#include "common/result.hpp"
#include "orchestrator/auth/jws_algorithm.hpp"
#include "orchestrator/auth/public_key.hpp"

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
    using Clock = std::chrono::steady_clock;
    using Fetch = std::function<Result<KeySet>()>;

    struct Options {
        std::chrono::seconds min_refresh_interval{30};
        std::chrono::seconds max_age{3600};
        std::chrono::milliseconds wait_timeout{10'000};  ///< how long a miss waits for a running fetch
        std::function<Clock::time_point()> now = [] {
            return Clock::now();
        };
    };

    IssuerKeys(std::string issuer, Fetch fetch, Options options);

    /// Candidate keys for a token: the key with `kid` (or, without a kid, every key) that can
    /// verify `alg`. kUnauthenticated when no such key exists even after a refresh;
    /// kUnavailable when the issuer's keys could never be fetched.
    Result<std::vector<PublicKeyPtr>> Find(const std::optional<std::string>& kid, JwsAlgorithm alg);

    /// Number of fetch attempts so far (for tests and metrics).
    std::uint64_t fetch_count() const;

   private:
    std::vector<PublicKeyPtr> Lookup(const std::optional<std::string>& kid, JwsAlgorithm alg, bool& stale) const;
    /// Fetches unless rate-limited; waits instead when another thread is fetching.
    void Refresh(bool unknown_kid);

    const std::string issuer_;
    const Fetch fetch_;
    const Options options_;

    mutable std::mutex mutex_;
    std::condition_variable fetched_;
    std::vector<PublicKeyPtr> keys_;
    std::optional<Clock::time_point> loaded_at_;
    std::optional<Clock::time_point> last_attempt_;
    std::string last_error_;
    bool in_flight_ = false;
    std::uint64_t generation_ = 0;
    std::uint64_t fetches_ = 0;
};

}  // namespace orch::auth
