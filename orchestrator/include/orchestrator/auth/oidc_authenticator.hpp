#pragma once

#include "common/json.hpp"
#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/auth/claims_mapping.hpp"
#include "orchestrator/auth/issuer_directory.hpp"
#include "orchestrator/auth/single_flight.hpp"
#include "orchestrator/auth/ttl_cache.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace orch::auth {

/// `auth: oidc`: our own verification of IAM access tokens.
///
/// JWT path: parse → header rules → `iss` looked up in the allow-list (no network before this) →
/// key chosen by `kid` within that issuer's JWKS → signature (OpenSSL EVP) → claims (exp/nbf/iat
/// with skew, aud when configured) → scopes and groups from the token, else from introspection
/// and/or userinfo (cached per token, bounded, until the token expires or `cache_max_ttl`). The
/// principal a token verified to is cached the same way, so a client's later requests with that
/// token skip all of it.
/// Opaque tokens are introspected at the issuers configured with `opaque_tokens: true`.
class OidcAuthenticator final : public Authenticator {
   public:
    explicit OidcAuthenticator(std::shared_ptr<IssuerDirectory> issuers);

    Result<Principal> Authenticate(std::string_view authorization_header_value) override;

   private:
    /// A verified token's principal and the key set that verified it (none for opaque tokens).
    struct Verified {
        Principal principal;
        const IssuerKeys* keys = nullptr;
        std::uint64_t key_set_version = 0;
    };

    Result<Principal> Verify(std::string_view token, Verified& stamp);
    Result<Principal> VerifyJwt(std::string_view token, Verified& stamp);
    Result<Principal> VerifyOpaque(std::string_view token);
    Status Complete(IssuerContext& issuer, std::string_view token, ClaimsCoverage coverage, Principal& principal);
    /// The cached answer for `key`, else `fetch()` once for all concurrent callers (cached until `until(answer)`).
    template <typename Fetch, typename Until>
    Result<Json> Cached(TtlCache<Json>& cache, const std::string& key, Fetch fetch, Until until);
    Result<Json> Introspection(IssuerContext& issuer, std::string_view token, const Principal& principal);
    Result<Json> Userinfo(IssuerContext& issuer, std::string_view token, const Principal& principal);
    TtlCache<Json>::Clock::time_point CacheUntil(const Principal& principal) const;

    std::shared_ptr<IssuerDirectory> issuers_;
    TtlCache<Json> introspections_;
    TtlCache<Json> userinfos_;
    TtlCache<Verified> verified_;  ///< tokens that verified, by the token's SHA-256
    SingleFlight flights_;
};

}  // namespace orch::auth
