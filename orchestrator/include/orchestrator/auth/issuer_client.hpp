#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/auth/public_key.hpp"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch::auth {

/// The endpoints of one issuer: configured overrides, else its discovery document.
struct IssuerEndpoints {
    std::string jwks_uri;
    std::string token_endpoint;
    std::string introspection_endpoint;
    std::string userinfo_endpoint;
    std::string revocation_endpoint;
    std::string registration_endpoint;  ///< RFC 7591; empty when the issuer offers none
};

/// A successful token endpoint answer. Holds secrets: never log it.
struct TokenGrant {
    std::string access_token;
    std::string refresh_token;  ///< empty when none was issued
    std::int64_t expires_in = 0;
    std::string scope;
};

using FormFields = std::vector<std::pair<std::string, std::string>>;

/// The network side of one issuer, through http::Client (so tests may pass a fake). Discovery is
/// fetched lazily and cached; every call is bounded (timeout, response size, and at most
/// `max_concurrent_idp_calls` at once per issuer). Thread-safe. Secrets never appear in errors.
class IssuerClient {
   public:
    /// The discovery document's age is read from `clock` (steady time), which must outlive this.
    IssuerClient(const IssuerConfig& config, const AuthConfig& limits, http::Client& http, const Clock& clock);

    const IssuerConfig& config() const { return config_; }

    Result<IssuerEndpoints> Endpoints();
    Result<KeySet> FetchKeys();
    /// RFC 7662 introspection, authenticated with our client credentials (HTTP Basic).
    Result<Json> Introspect(std::string_view token, std::string_view token_type_hint);
    /// The user's claims from the userinfo endpoint, with the user's own access token.
    Result<Json> Userinfo(std::string_view access_token);
    /// A token endpoint request authenticated as our client (grant fields in `form`).
    Result<TokenGrant> RequestToken(const FormFields& form);
    /// RFC 7009 revocation (best effort at the caller).
    Status Revoke(std::string_view token, std::string_view token_type_hint);

   private:
    Result<http::ClientResponse> Send(http::ClientRequest request, std::size_t max_bytes);
    Result<Json> SendForJson(http::ClientRequest request, std::size_t max_bytes, const char* what);
    Result<IssuerEndpoints> Discover();
    std::string BasicCredentials() const;

    const IssuerConfig& config_;
    http::Client& http_;
    const Clock& clock_;
    const std::chrono::milliseconds timeout_;
    const std::chrono::seconds discovery_max_age_;
    std::counting_semaphore<256> slots_;

    std::mutex discovery_mutex_;  // also serialises discovery fetches
    std::optional<IssuerEndpoints> endpoints_;
    Clock::SteadyTime discovered_at_{};
};

/// True for https URLs, or http on loopback (tests only ever run there).
bool IsSecureOrLoopbackUrl(const std::string& url);

}  // namespace orch::auth
