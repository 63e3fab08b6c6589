#pragma once

#include "common/config.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/jws_algorithm.hpp"

#include <chrono>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace orch::auth {

enum class AuthMode { kDisabled, kOidc };

/// When to ask the issuer's introspection endpoint (RFC 7662) about a JWT access token.
enum class IntrospectionUse {
    kNever,
    kAuto,    ///< only when the token lacks the scope (or, without userinfo, the groups) claim
    kAlways,  ///< every new token (also catches tokens revoked at the issuer)
};

/// When to call userinfo for the user's groups: never, or when neither token nor introspection had them.
enum class UserinfoUse { kNever, kAuto };

/// Scopes per kind of endpoint (contract §5.2): all of `every_request`, plus one of the `*_any_of`.
struct ScopePolicy {
    std::vector<std::string> every_request{"openid", "profile"};
    std::vector<std::string> write_any_of{"offline_access", "fts:submit-transfer"};
    std::vector<std::string> action_any_of{"offline_access"};
};

/// One trusted issuer (a community's IAM), keyed by a short name in the configuration.
struct IssuerConfig {
    std::string name;    ///< the key under auth.issuers (letters, digits, '_')
    std::string issuer;  ///< the exact `iss` value, e.g. "https://iam.example.org/"
    std::string client_id;
    std::string client_secret;
    std::string admin_group = "orchestrator-admins";
    std::vector<std::string> audiences;  ///< incoming tokens must name one of these in `aud`; empty = no check
    std::string exchange_audience;       ///< `audience` sent on token exchange and refresh (e.g. for Vault)
    std::vector<std::string> scopes{"openid", "profile", "offline_access", "fts:submit-transfer"};
    std::vector<JwsAlgorithm> algorithms{JwsAlgorithm::kRs256};
    std::string groups_claim = "groups";  ///< or "wlcg.groups" (leading '/' stripped)
    IntrospectionUse introspection = IntrospectionUse::kAuto;
    UserinfoUse userinfo = UserinfoUse::kAuto;
    bool opaque_tokens = false;  ///< accept non-JWT tokens by introspecting them at this issuer
    bool token_exchange = true;  ///< obtain refresh tokens for async work by RFC 8693 exchange
    // Endpoint overrides; empty ones come from the discovery document.
    std::string discovery_url;
    std::string jwks_uri;
    std::string token_endpoint;
    std::string introspection_endpoint;
    std::string userinfo_endpoint;
    std::string revocation_endpoint;
};

struct AuthConfig {
    AuthMode mode = AuthMode::kOidc;
    std::vector<IssuerConfig> issuers;
    ScopePolicy scopes;
    /// [post-4.0.1] admins may act on any deployment of their issuer; off by default, as v4.0.1
    /// (contract §5.3: only the owner may update, delete, reset or act on a deployment).
    bool admins_operate_on_any = false;
    std::chrono::seconds clock_skew{60};
    std::size_t max_token_bytes = 8192;
    std::chrono::milliseconds http_timeout{5000};
    std::chrono::seconds jwks_min_refresh_interval{30};
    std::chrono::seconds jwks_max_age{3600};
    std::chrono::seconds discovery_max_age{86400};
    std::size_t cache_max_entries = 10000;
    std::chrono::seconds cache_max_ttl{300};       ///< introspection/userinfo answers, capped by token expiry
    std::chrono::seconds negative_cache_ttl{10};   ///< inactive-token answers
    int max_concurrent_idp_calls = 8;              ///< per issuer
    std::chrono::seconds refresh_margin{300};      ///< renew downstream access tokens this long before expiry
    std::string token_key;                         ///< 32 raw bytes (AES-256-GCM) for refresh tokens at rest
    std::vector<std::string> previous_token_keys;  ///< still accepted for decryption (key rotation)

    const IssuerConfig* FindIssuer(std::string_view iss) const;
};

/// Reads and validates the `auth:` section; every error names the key. Secrets may come from the
/// environment through ConfigTree overrides (ORCHESTRATOR_AUTH__TOKEN_KEY,
/// ORCHESTRATOR_AUTH__ISSUERS__<NAME>__CLIENT_SECRET). With mode oidc a missing token key, no
/// issuer, or a plaintext non-loopback issuer refuses to start.
Result<AuthConfig> LoadAuthConfig(const ConfigTree& tree);

/// Every key LoadAuthConfig understands, for ConfigTree::CheckKnownKeys ("auth.issuers.*" covers
/// the per-issuer entries, which LoadAuthConfig checks itself).
std::set<std::string> AuthConfigKeys();

/// Decodes a token key given as 64 hex digits or base64/base64url of 32 bytes. The error never
/// repeats the value.
Result<std::string> DecodeTokenKey(std::string_view text, const std::string& key_name);

}  // namespace orch::auth
