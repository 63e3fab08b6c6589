#include "orchestrator/auth/issuer_keys.hpp"

#include "common/log.hpp"

namespace orch::auth {

IssuerKeys::IssuerKeys(std::string issuer, Fetch fetch, Options options, const Clock& clock)
    : issuer_(std::move(issuer)), fetch_(std::move(fetch)), options_(options), clock_(clock) {}

std::uint64_t IssuerKeys::fetch_count() const {
    const std::lock_guard lock(mutex_);
    return fetches_;
}

std::vector<PublicKeyPtr> IssuerKeys::Lookup(const std::optional<std::string>& kid, JwsAlgorithm alg, bool& stale)
    const {
    const std::lock_guard lock(mutex_);
    stale = !loaded_at_ || clock_.steady_now() - *loaded_at_ > options_.max_age;
    std::vector<PublicKeyPtr> out;
    for (const auto& key : keys_) {
        if ((!kid || key->kid() == *kid) && key->CanVerify(alg)) {
            out.push_back(key);
        }
    }
    return out;
}

void IssuerKeys::Refresh(bool unknown_kid) {
    std::unique_lock lock(mutex_);
    if (in_flight_ && !unknown_kid) {
        return;  // a periodic refresh is running; the keys we have are still good meanwhile
    }
    if (in_flight_) {
        const auto seen = generation_;
        fetched_.wait_for(lock, options_.wait_timeout, [&] { return generation_ != seen; });
        return;
    }
    const auto now = clock_.steady_now();
    if (last_attempt_ && now - *last_attempt_ < options_.min_refresh_interval) {
        return;  // rate-limited: a flood of made-up kids cannot make us hammer the issuer
    }
    in_flight_ = true;
    last_attempt_ = now;
    ++fetches_;
    lock.unlock();

    auto fetched = fetch_();

    lock.lock();
    in_flight_ = false;
    ++generation_;
    if (fetched) {
        keys_ = std::move(fetched->keys);
        key_set_version_.fetch_add(1, std::memory_order_release);
        loaded_at_ = clock_.steady_now();
        last_error_.clear();
        ORCH_LOG_INFO(
            "issuer signing keys loaded",
            {{"issuer", issuer_},
             {"keys", static_cast<std::int64_t>(keys_.size())},
             {"skipped", static_cast<std::int64_t>(fetched->skipped.size())},
             {"reason", unknown_kid ? "unknown kid" : "refresh"}}
        );
        for (const auto& why : fetched->skipped) {
            ORCH_LOG_WARN("issuer key skipped", {{"issuer", issuer_}, {"why", why}});
        }
    } else {
        last_error_ = fetched.error().message;
        ORCH_LOG_WARN(
            "issuer signing keys could not be fetched; keeping the previous set",
            {{"issuer", issuer_}, {"error", last_error_}, {"kept", static_cast<std::int64_t>(keys_.size())}}
        );
    }
    lock.unlock();
    fetched_.notify_all();
}

Result<std::vector<PublicKeyPtr>> IssuerKeys::Find(const std::optional<std::string>& kid, JwsAlgorithm alg) {
    bool stale = false;
    auto keys = Lookup(kid, alg, stale);
    if (!keys.empty() && !stale) {
        return keys;
    }
    Refresh(keys.empty());
    keys = Lookup(kid, alg, stale);
    if (!keys.empty()) {
        return keys;
    }
    const std::lock_guard lock(mutex_);
    if (keys_.empty() && !last_error_.empty()) {
        return Error::Unavailable("the signing keys of issuer " + issuer_ + " cannot be fetched: " + last_error_);
    }
    if (kid) {
        return Error::Unauthenticated("no signing key with this key id ('kid') is published by the issuer");
    }
    return Error::Unauthenticated("no signing key of the issuer fits the token's algorithm");
}

}  // namespace orch::auth
