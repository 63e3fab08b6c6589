#include "orchestrator/auth/auth_config.hpp"

#include "auth/section_reader.hpp"
#include "orchestrator/auth/base64.hpp"
#include "orchestrator/auth/issuer_client.hpp"

#include <algorithm>
#include <cctype>

namespace orch::auth {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const std::set<std::string>& KnownIssuerKeys() {
    static const std::set<std::string> kKeys = {
        "issuer",
        "client_id",
        "client_secret",
        "admin_group",
        "audiences",
        "exchange_audience",
        "scopes",
        "algorithms",
        "groups_claim",
        "introspection",
        "userinfo",
        "opaque_tokens",
        "token_exchange",
        "discovery_url",
        "jwks_uri",
        "token_endpoint",
        "introspection_endpoint",
        "userinfo_endpoint",
        "revocation_endpoint",
        // Read by the IM connector's options (app/im_config.cpp), not here.
        "clues_client_id",
        "clues_client_secret"};
    return kKeys;
}

Error KeyError(const std::string& key, const std::string& what) {
    return Error::InvalidArgument("config key '" + key + "': " + what);
}

void ReadAlgorithms(SectionReader& reader, std::vector<JwsAlgorithm>& out) {
    std::vector<std::string> names = {"RS256"};
    reader.List("algorithms", names);
    std::vector<JwsAlgorithm> algorithms;
    for (const auto& name : names) {
        if (IsForbiddenJwsAlgorithmName(name)) {
            return reader.Fail("algorithms", "'" + name + "' is never accepted (no HMAC, no 'none')");
        }
        const auto alg = ParseJwsAlgorithm(name);
        if (!alg) {
            return reader.Fail(
                "algorithms",
                "unknown algorithm '" + name + "' (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384)"
            );
        }
        algorithms.push_back(*alg);
    }
    if (algorithms.empty()) {
        return reader.Fail("algorithms", "at least one algorithm is needed");
    }
    out = std::move(algorithms);
}

Status CheckIssuerName(const std::string& name) {
    const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::islower(c) != 0 || std::isdigit(c) != 0 || c == '_';
    });
    if (!ok) {
        return KeyError(
            "auth.issuers." + name,
            "issuer names are lowercase letters, digits and '_' (they appear in environment variable names)"
        );
    }
    return Ok();
}

Status CheckIssuerKeys(const ConfigTree& tree, const std::string& section) {
    for (const auto& child : tree.ChildKeys(section)) {
        if (KnownIssuerKeys().count(child) == 0) {
            return KeyError(section + "." + child, "is not known (misspelt?)");
        }
    }
    return Ok();
}

Result<IssuerConfig> LoadIssuer(const ConfigTree& tree, const std::string& name) {
    ORCH_RETURN_IF_ERROR(CheckIssuerName(name));
    const std::string section = "auth.issuers." + name;
    ORCH_RETURN_IF_ERROR(CheckIssuerKeys(tree, section));
    IssuerConfig c;
    c.name = name;
    SectionReader r(tree, section);
    r.Text("issuer", c.issuer);
    r.Text("client_id", c.client_id);
    r.Text("client_secret", c.client_secret);
    r.Text("admin_group", c.admin_group);
    r.List("audiences", c.audiences);
    r.Text("exchange_audience", c.exchange_audience);
    r.List("scopes", c.scopes);
    ReadAlgorithms(r, c.algorithms);
    r.Text("groups_claim", c.groups_claim);
    r.OneOf<IntrospectionUse>(
        "introspection",
        {{"never", IntrospectionUse::kNever}, {"auto", IntrospectionUse::kAuto}, {"always", IntrospectionUse::kAlways}},
        c.introspection
    );
    r.OneOf<UserinfoUse>("userinfo", {{"never", UserinfoUse::kNever}, {"auto", UserinfoUse::kAuto}}, c.userinfo);
    r.Flag("opaque_tokens", c.opaque_tokens);
    r.Flag("token_exchange", c.token_exchange);
    r.Text("discovery_url", c.discovery_url);
    r.Text("jwks_uri", c.jwks_uri);
    r.Text("token_endpoint", c.token_endpoint);
    r.Text("introspection_endpoint", c.introspection_endpoint);
    r.Text("userinfo_endpoint", c.userinfo_endpoint);
    r.Text("revocation_endpoint", c.revocation_endpoint);
    if (!r.status()) {
        return r.status().error();
    }
    return c;
}

// Tokens and client secrets travel on these URLs: plaintext only on loopback (tests).
Status CheckUrls(const IssuerConfig& c, const std::string& p) {
    const std::pair<const char*, const std::string*> urls[] = {
        {"issuer", &c.issuer},
        {"discovery_url", &c.discovery_url},
        {"jwks_uri", &c.jwks_uri},
        {"token_endpoint", &c.token_endpoint},
        {"introspection_endpoint", &c.introspection_endpoint},
        {"userinfo_endpoint", &c.userinfo_endpoint},
        {"revocation_endpoint", &c.revocation_endpoint}};
    for (const auto& [key, value] : urls) {
        if (!value->empty() && !http::ParseUrl(*value)) {
            return KeyError(p + key, "not an absolute http(s) URL");
        }
        if (!value->empty() && !IsSecureOrLoopbackUrl(*value)) {
            return KeyError(p + key, "must be an https URL (plain http is only allowed on loopback)");
        }
    }
    return Ok();
}

Status ValidateIssuer(const IssuerConfig& c) {
    const std::string p = "auth.issuers." + c.name + ".";
    if (c.issuer.empty()) {
        return KeyError(p + "issuer", "is required (the exact 'iss' of the tokens, e.g. https://iam.example.org/)");
    }
    ORCH_RETURN_IF_ERROR(CheckUrls(c, p));
    const bool needs_client = c.introspection != IntrospectionUse::kNever || c.opaque_tokens || c.token_exchange;
    if (needs_client && (c.client_id.empty() || c.client_secret.empty())) {
        return KeyError(
            p + (c.client_id.empty() ? "client_id" : "client_secret"),
            "is required for introspection and token exchange (or set introspection: never and token_exchange: false)"
        );
    }
    if (c.opaque_tokens && c.introspection == IntrospectionUse::kNever) {
        return KeyError(p + "opaque_tokens", "needs introspection (opaque tokens can only be checked by the issuer)");
    }
    if (c.groups_claim.empty()) {
        return KeyError(p + "groups_claim", "must not be empty");
    }
    return Ok();
}

Status LoadMode(const ConfigTree& tree, AuthConfig& c) {
    // `auth: disabled` (a scalar) is the short form of `auth: {mode: disabled}`.
    const bool scalar = tree.Has("auth") && tree.ChildKeys("auth").empty();
    SectionReader r(tree, scalar ? "" : "auth");
    r.OneOf<AuthMode>(scalar ? "auth" : "mode", {{"disabled", AuthMode::kDisabled}, {"oidc", AuthMode::kOidc}}, c.mode);
    return r.status();
}

Status LoadLimits(const ConfigTree& tree, AuthConfig& c) {
    SectionReader r(tree, "auth");
    std::uint64_t max_token_bytes = c.max_token_bytes;
    std::int64_t cache_entries = static_cast<std::int64_t>(c.cache_max_entries);
    std::int64_t idp_calls = c.max_concurrent_idp_calls;
    r.Seconds("clock_skew", seconds(300), c.clock_skew);
    r.Bytes("max_token_bytes", 512, 65536, max_token_bytes);
    r.Duration("http_timeout", milliseconds(100), milliseconds(60'000), c.http_timeout);
    r.Seconds("jwks_min_refresh_interval", seconds(3600), c.jwks_min_refresh_interval);
    r.Seconds("jwks_max_age", seconds(7 * 86400), c.jwks_max_age);
    r.Seconds("discovery_max_age", seconds(30 * 86400), c.discovery_max_age);
    r.Int("cache_max_entries", 16, 10'000'000, cache_entries);
    r.Seconds("cache_max_ttl", seconds(86400), c.cache_max_ttl);
    r.Seconds("negative_cache_ttl", seconds(3600), c.negative_cache_ttl);
    r.Int("max_concurrent_idp_calls", 1, 256, idp_calls);
    r.Seconds("refresh_margin", seconds(86400), c.refresh_margin);
    r.Flag("admins_operate_on_any", c.admins_operate_on_any);
    r.List("required_scopes.every_request", c.scopes.every_request);
    r.List("required_scopes.write_any_of", c.scopes.write_any_of);
    r.List("required_scopes.action_any_of", c.scopes.action_any_of);
    c.max_token_bytes = static_cast<std::size_t>(max_token_bytes);
    c.cache_max_entries = static_cast<std::size_t>(cache_entries);
    c.max_concurrent_idp_calls = static_cast<int>(idp_calls);
    return r.status();
}

Status LoadKeys(const ConfigTree& tree, AuthConfig& c) {
    SectionReader r(tree, "auth");
    std::string key;
    std::vector<std::string> previous;
    r.Text("token_key", key);
    r.List("previous_token_keys", previous);
    ORCH_RETURN_IF_ERROR(r.status());
    if (key.empty()) {
        return KeyError(
            "auth.token_key",
            "is required when auth is on: 32 random bytes as base64 or 64 hex digits (e.g. `openssl rand -base64 32`), "
            "best given as ORCHESTRATOR_AUTH__TOKEN_KEY"
        );
    }
    auto decoded = DecodeTokenKey(key, "auth.token_key");
    if (!decoded) {
        return std::move(decoded).error();
    }
    c.token_key = std::move(*decoded);
    for (const auto& text : previous) {
        auto old = DecodeTokenKey(text, "auth.previous_token_keys");
        if (!old) {
            return std::move(old).error();
        }
        c.previous_token_keys.push_back(std::move(*old));
    }
    return Ok();
}

Status LoadIssuers(const ConfigTree& tree, AuthConfig& c) {
    const auto names = tree.ChildKeys("auth.issuers");
    if (names.empty()) {
        return KeyError("auth.issuers", "at least one trusted issuer is required when auth.mode is oidc");
    }
    for (const auto& name : names) {
        auto issuer = LoadIssuer(tree, name);
        if (!issuer) {
            return std::move(issuer).error();
        }
        ORCH_RETURN_IF_ERROR(ValidateIssuer(*issuer));
        if (c.FindIssuer(issuer->issuer) != nullptr) {
            return KeyError("auth.issuers." + name + ".issuer", "'" + issuer->issuer + "' is configured twice");
        }
        c.issuers.push_back(std::move(*issuer));
    }
    return Ok();
}

bool IsHex(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isxdigit(ch) != 0; });
}

}  // namespace

const IssuerConfig* AuthConfig::FindIssuer(std::string_view iss) const {
    for (const auto& issuer : issuers) {
        if (issuer.issuer == iss) {
            return &issuer;
        }
    }
    return nullptr;
}

Result<std::string> DecodeTokenKey(std::string_view text, const std::string& key_name) {
    if (text.size() == 64 && IsHex(text)) {
        std::string out;
        for (std::size_t i = 0; i < 64; i += 2) {
            out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
        }
        return out;
    }
    std::optional<std::string> bytes = Base64Decode(text);
    if (!bytes) {
        std::string_view unpadded = text;
        while (!unpadded.empty() && unpadded.back() == '=') {
            unpadded.remove_suffix(1);
        }
        bytes = Base64UrlDecode(unpadded);
    }
    if (!bytes || bytes->size() != 32) {
        return KeyError(key_name, "must be 32 bytes given as base64 or as 64 hex digits (the value is not shown)");
    }
    return *bytes;
}

Result<AuthConfig> LoadAuthConfig(const ConfigTree& tree) {
    AuthConfig c;
    c.mode = AuthMode::kOidc;  // the safe default: a forgotten section fails at startup
    ORCH_RETURN_IF_ERROR(LoadMode(tree, c));
    ORCH_RETURN_IF_ERROR(LoadLimits(tree, c));
    if (c.mode == AuthMode::kDisabled) {
        return c;
    }
    ORCH_RETURN_IF_ERROR(LoadKeys(tree, c));
    ORCH_RETURN_IF_ERROR(LoadIssuers(tree, c));
    return c;
}

std::set<std::string> AuthConfigKeys() {
    // Not "auth" itself: a known key is not descended into, and the children must be checked.
    return {
        "auth.mode",
        "auth.token_key",
        "auth.previous_token_keys",
        "auth.clock_skew",
        "auth.max_token_bytes",
        "auth.http_timeout",
        "auth.jwks_min_refresh_interval",
        "auth.jwks_max_age",
        "auth.discovery_max_age",
        "auth.cache_max_entries",
        "auth.cache_max_ttl",
        "auth.negative_cache_ttl",
        "auth.max_concurrent_idp_calls",
        "auth.refresh_margin",
        "auth.admins_operate_on_any",
        "auth.required_scopes.every_request",
        "auth.required_scopes.write_any_of",
        "auth.required_scopes.action_any_of",
        "auth.issuers.*"};
}

}  // namespace orch::auth
