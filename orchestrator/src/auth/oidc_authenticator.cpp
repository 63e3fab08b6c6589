#include "orchestrator/auth/oidc_authenticator.hpp"

#include "common/log.hpp"
#include "orchestrator/auth/jws.hpp"
#include "orchestrator/auth/token_checks.hpp"
#include "orchestrator/auth/token_hash.hpp"

#include <algorithm>

namespace orch::auth {
namespace {

// Untrusted text (e.g. an unknown issuer) goes into messages and headers: printable ASCII only, short.
std::string Printable(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 120)) {
        out.push_back(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : '?');
    }
    return out;
}

Error Invalid(const std::string& why) {
    return Error::Unauthenticated(std::string(kInvalidTokenPrefix) + why);
}

// Reasons from lower layers become the contract's "Invalid token: ..." (401); outages stay 503.
Error AsTokenError(const Error& error) {
    if (error.code == ErrorCode::kUnauthenticated || error.code == ErrorCode::kInvalidArgument) {
        return Invalid(error.message);
    }
    return error;
}

bool NeedsIntrospection(const IssuerConfig& config, ClaimsCoverage coverage) {
    switch (config.introspection) {
        case IntrospectionUse::kNever:
            return false;
        case IntrospectionUse::kAlways:
            return true;
        case IntrospectionUse::kAuto:
            return !coverage.scopes || (!coverage.groups && config.userinfo == UserinfoUse::kNever);
    }
    return false;
}

// Per-token caches are keyed by the token's SHA-256, so they hold no token.
std::string CacheKey(const IssuerContext& issuer, std::string_view token) {
    return issuer.config.name + '\n' + TokenDigest(token);
}

// Introspection answers are untrusted JSON: read members without nlohmann's throwing accessors.
bool IsActive(const Json& answer) {
    const auto it = answer.find("active");
    return it != answer.end() && it->is_boolean() && it->get<bool>();
}

std::string TextOr(const Json& answer, const char* name, const std::string& fallback) {
    const auto it = answer.find(name);
    return it != answer.end() && it->is_string() ? it->get<std::string>() : fallback;
}

Result<Json> RequireActive(Result<Json> answer, const Principal& principal) {
    if (!answer) {
        return answer;
    }
    if (!IsActive(*answer)) {
        return Error::Unauthenticated("the issuer says the token is not active (expired or revoked)");
    }
    const auto sub = answer->find("sub");
    if (!principal.subject.empty() && sub != answer->end() && (!sub->is_string() || *sub != principal.subject)) {
        return Error::Unauthenticated("the issuer's introspection names another subject");
    }
    return answer;
}

}  // namespace

OidcAuthenticator::OidcAuthenticator(std::shared_ptr<IssuerDirectory> issuers)
    : issuers_(std::move(issuers)),
      introspections_(issuers_->config().cache_max_entries),
      userinfos_(issuers_->config().cache_max_entries),
      verified_(issuers_->config().cache_max_entries) {}

Result<Principal> OidcAuthenticator::Authenticate(std::string_view authorization_header_value) {
    auto token = ExtractBearerToken(authorization_header_value, issuers_->config().max_token_bytes);
    if (!token) {
        ORCH_LOG_DEBUG("authentication failed", {{"reason", token.error().message}});
        return std::move(token).error();
    }
    // A client sends the same token with every request until it expires: the principal it
    // verified to is kept (keyed by the token's SHA-256, so the cache holds no token), which
    // spares each later request the signature, the JSON parsing and the claim mapping (most of
    // auth's CPU per request, bench/auth). Only successes are kept, as long as introspection
    // answers are (CacheUntil); the token's expiry or a new key set of its issuer (a key may
    // have been withdrawn) ends an entry early.
    const std::string key = TokenDigest(*token);
    if (auto known = verified_.Get(key, issuers_->clock().steady_now());
        known && known->principal.expires_at > issuers_->clock().now() &&
        (known->keys == nullptr || known->keys->key_set_version() == known->key_set_version)) {
        return std::move(known->principal);
    }
    Verified stamp;
    auto principal = Verify(*token, stamp);
    if (principal && CarriesNul(*principal)) {
        principal = Invalid("a claim holds a NUL character");
    }
    if (!principal) {
        ORCH_LOG_INFO(
            "authentication failed", {{"reason", principal.error().message}, {"token_sha256", TokenLogId(*token)}}
        );
        return principal;
    }
    stamp.principal = *principal;
    verified_.Put(key, std::move(stamp), CacheUntil(*principal));
    return principal;
}

Result<Principal> OidcAuthenticator::Verify(std::string_view token, Verified& stamp) {
    const auto dots = std::count(token.begin(), token.end(), '.');
    if (dots == 2) {
        return VerifyJwt(token, stamp);
    }
    if (dots == 4) {
        return Invalid("encrypted tokens (JWE) are not supported");
    }
    return VerifyOpaque(token);
}

Result<Principal> OidcAuthenticator::VerifyJwt(std::string_view token, Verified& stamp) {
    const AuthConfig& config = issuers_->config();
    auto jws = ParseCompactJws(token, {.max_token_bytes = config.max_token_bytes, .max_json_depth = 16});
    if (!jws) {
        return AsTokenError(jws.error());
    }
    auto header = CheckJwsHeader(jws->header);
    if (!header) {
        return AsTokenError(header.error());
    }
    const auto iss = jws->payload.find("iss");
    if (iss == jws->payload.end() || !iss->is_string()) {
        return Invalid("the token has no issuer ('iss' claim)");
    }
    // The allow-list decides before anything touches the network (and before any key is chosen).
    IssuerContext* issuer = issuers_->Find(iss->get_ref<const std::string&>());
    if (issuer == nullptr) {
        return Invalid("issuer '" + Printable(iss->get_ref<const std::string&>()) + "' is not trusted");
    }
    if (auto allowed = CheckAlgorithmAllowed(header->alg, issuer->config.algorithms); !allowed) {
        return AsTokenError(allowed.error());
    }
    // Read before the keys are: a set replaced meanwhile only makes the next request verify again.
    stamp.keys = &issuer->keys;
    stamp.key_set_version = issuer->keys.key_set_version();
    auto keys = issuer->keys.Find(header->kid, header->alg);
    if (!keys) {
        return AsTokenError(keys.error());
    }
    const bool verified = std::any_of(keys->begin(), keys->end(), [&](const PublicKeyPtr& key) {
        return static_cast<bool>(VerifyJwsSignature(header->alg, *key, jws->signing_input, jws->signature));
    });
    if (!verified) {
        return Invalid("the signature does not verify");
    }
    const ClaimRules rules{issuer->config.audiences, config.clock_skew};
    if (auto claims = CheckClaims(jws->payload, rules, issuers_->clock().now()); !claims) {
        return AsTokenError(claims.error());
    }
    Principal principal;
    const ClaimsCoverage coverage = ApplyTokenClaims(jws->payload, issuer->config, principal);
    if (principal.token_id.empty()) {
        principal.token_id = TokenLogId(token);
    }
    ORCH_RETURN_IF_ERROR(Complete(*issuer, token, coverage, principal));
    return principal;
}

Status OidcAuthenticator::Complete(
    IssuerContext& issuer, std::string_view token, ClaimsCoverage coverage, Principal& principal
) {
    const IssuerConfig& config = issuer.config;
    if (NeedsIntrospection(config, coverage)) {
        auto answer = Introspection(issuer, token, principal);
        if (!answer) {
            return AsTokenError(answer.error());
        }
        ApplyIntrospection(*answer, config, principal);
        coverage.groups = coverage.groups || principal.groups.has_value();
    }
    if (!coverage.groups && config.userinfo == UserinfoUse::kAuto && principal.HasScope("openid")) {
        auto answer = Userinfo(issuer, token, principal);
        if (!answer) {
            return AsTokenError(answer.error());
        }
        ApplyUserinfo(*answer, config, principal);
    }
    ApplyAdmin(config, principal);
    return Ok();
}

Clock::SteadyTime OidcAuthenticator::CacheUntil(const Principal& principal) const {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(principal.expires_at - issuers_->clock().now());
    return issuers_->clock().steady_now() + std::clamp(left, std::chrono::seconds(0), issuers_->config().cache_max_ttl);
}

template <typename Fetch, typename Until>
Result<Json> OidcAuthenticator::Cached(TtlCache<Json>& cache, const std::string& key, Fetch fetch, Until until) {
    if (auto cached = cache.Get(key, issuers_->clock().steady_now())) {
        return std::move(*cached);
    }
    const bool leader = flights_.Lead(key, issuers_->config().http_timeout);
    if (!leader) {
        if (auto cached = cache.Get(key, issuers_->clock().steady_now())) {
            return std::move(*cached);
        }
    }
    Result<Json> answer = fetch();
    if (answer) {
        cache.Put(key, *answer, until(*answer));  // outages (errors) are not cached
    }
    if (leader) {
        flights_.Done(key);
    }
    return answer;
}

Result<Json> OidcAuthenticator::Introspection(
    IssuerContext& issuer, std::string_view token, const Principal& principal
) {
    auto answer = Cached(
        introspections_,
        "i\n" + CacheKey(issuer, token),
        [&] { return issuer.client.Introspect(token, "access_token"); },
        [&](const Json& json) {
            // Inactive answers are kept briefly only: enough to blunt a flood of one bad token.
            return IsActive(json) ? CacheUntil(principal)
                                  : issuers_->clock().steady_now() + issuers_->config().negative_cache_ttl;
        }
    );
    return RequireActive(std::move(answer), principal);
}

Result<Json> OidcAuthenticator::Userinfo(IssuerContext& issuer, std::string_view token, const Principal& principal) {
    auto answer = Cached(
        userinfos_,
        "u\n" + CacheKey(issuer, token),
        [&] { return issuer.client.Userinfo(token); },
        [&](const Json&) { return CacheUntil(principal); }
    );
    if (!answer) {
        return answer;
    }
    if (const auto sub = answer->find("sub"); sub == answer->end() || !sub->is_string() || *sub != principal.subject) {
        return Error::Unauthenticated("the issuer's userinfo names another subject");
    }
    return answer;
}

Result<Principal> OidcAuthenticator::VerifyOpaque(std::string_view token) {
    std::optional<Error> outage;
    bool any = false;
    for (const auto& issuer : issuers_->issuers()) {
        if (!issuer->config.opaque_tokens) {
            continue;
        }
        any = true;
        Principal principal;
        principal.issuer = issuer->config.issuer;
        principal.expires_at = issuers_->clock().now() + issuers_->config().cache_max_ttl;
        auto answer = Introspection(*issuer, token, principal);
        if (!answer) {
            if (answer.error().code != ErrorCode::kUnauthenticated) {
                outage = answer.error();
            }
            continue;
        }
        const std::string iss = TextOr(*answer, "iss", issuer->config.issuer);
        const std::string sub = TextOr(*answer, "sub", "");
        if (iss != issuer->config.issuer || sub.empty()) {
            continue;
        }
        principal.subject = sub;
        if (const auto exp = answer->find("exp"); exp != answer->end() && exp->is_number()) {
            const double seconds = std::clamp(exp->get<double>(), 0.0, 1e11);  // untrusted: keep the cast defined
            principal.expires_at = Clock::WallTime(std::chrono::seconds(static_cast<std::int64_t>(seconds)));
        }
        principal.token_id = TokenLogId(token);
        ApplyIntrospection(*answer, issuer->config, principal);
        ORCH_RETURN_IF_ERROR(
            Complete(*issuer, token, {.scopes = true, .groups = principal.groups.has_value()}, principal)
        );
        return principal;
    }
    if (!any) {
        return Invalid("not a signed JWT");
    }
    if (outage) {
        return *outage;
    }
    return Invalid("the token is not active at any trusted issuer");
}

}  // namespace orch::auth
