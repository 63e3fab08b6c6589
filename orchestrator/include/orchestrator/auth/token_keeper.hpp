#pragma once

#include "common/http_client.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/issuer_directory.hpp"
#include "orchestrator/auth/principal.hpp"
#include "orchestrator/auth/refresh_token_store.hpp"
#include "orchestrator/auth/token_cipher.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace orch::auth {

/// Acting for a user after their request is over (contract §5.5): deployments outlive the user's
/// access token, so on each mutating call we obtain a refresh token for the orchestrator's client
/// (RFC 8693 token exchange, as IAM does it), keep it encrypted in a RefreshTokenStore, and later
/// mint access tokens from it for downstream services (IM/Keystone, Marathon, Kubernetes, CMDB,
/// SLAM, Vault). Thread-safe; refreshes for one user are single-flight (rotated refresh tokens
/// must not be used twice). Blocking: call it from workers, not I/O threads.
class TokenKeeper {
   public:
    TokenKeeper(
        std::shared_ptr<IssuerDirectory> issuers,
        RefreshTokenStore& store,
        TokenCipher cipher,
        std::chrono::seconds refresh_margin
    );

    /// On create/update/delete/actions: makes sure a usable refresh token is stored for the caller.
    /// A stored one that the issuer still reports active is kept; otherwise `access_token` (the
    /// caller's bearer token) is exchanged. Fails, as the original does, unless every configured
    /// scope is granted ("Not all the required scopes have been granted"). No-op for the local user
    /// and for issuers with token_exchange: false.
    Status Enroll(const Principal& principal, std::string_view access_token);

    /// Stores a refresh token the user obtained for the orchestrator's client themselves (offline
    /// access), after checking it with one refresh.
    Status EnrollRefreshToken(const Principal& principal, std::string_view refresh_token);

    /// A fresh access token for (issuer, subject): cached, renewed `refresh_margin` before it
    /// expires (at most half its lifetime). Works long after the user's own token expired.
    /// kUnauthenticated when no refresh token is stored or the issuer rejects it (the user must log
    /// in again); kUnavailable when the issuer cannot be reached.
    Result<std::string> AccessTokenFor(const std::string& issuer, const std::string& subject);

    /// Drops the cached access token (a downstream service said 401): the next call refreshes.
    void Invalidate(const std::string& issuer, const std::string& subject);

    /// Removes the user's stored refresh token (revoking it at the issuer, best effort).
    Status Forget(const std::string& issuer, const std::string& subject);

    /// Sends `request` with the user's access token; on HTTP 401 invalidates, refreshes and
    /// retries exactly once.
    Result<http::ClientResponse> SendAsUser(
        http::Client& http, http::ClientRequest request, const std::string& issuer, const std::string& subject
    );

   private:
    struct Slot {
        std::mutex mutex;
        std::string access_token;
        std::chrono::steady_clock::time_point expires_at{};
        std::chrono::seconds lifetime{0};
    };

    std::shared_ptr<Slot> SlotFor(const std::string& issuer, const std::string& subject);
    Result<IssuerContext*> IssuerFor(const std::string& issuer) const;
    Status Exchange(IssuerContext& issuer, const Principal& principal, std::string_view access_token);
    Result<std::string> Refresh(IssuerContext& issuer, Slot& slot, const std::string& subject);
    Status Store(const std::string& issuer, const std::string& subject, std::string_view refresh_token);
    Result<std::optional<std::string>> Load(const std::string& issuer, const std::string& subject);
    Status StoredTokenIsActive(IssuerContext& issuer, const std::string& subject, bool& active);
    void Remember(Slot& slot, const std::string& access_token, std::int64_t expires_in);

    std::shared_ptr<IssuerDirectory> issuers_;
    RefreshTokenStore& store_;
    const TokenCipher cipher_;
    const std::chrono::seconds refresh_margin_;

    std::mutex slots_mutex_;
    std::map<std::pair<std::string, std::string>, std::shared_ptr<Slot>> slots_;
};

}  // namespace orch::auth
