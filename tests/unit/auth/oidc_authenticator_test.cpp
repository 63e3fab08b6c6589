#include "orchestrator/auth/oidc_authenticator.hpp"

#include "common/log.hpp"
#include "fake_idp.hpp"
#include "orchestrator/auth/authorization.hpp"
#include "orchestrator/auth/base64.hpp"
#include "test_jwt.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using orch::test::EpochSeconds;
using orch::test::FakeIdp;

namespace {

struct Rig {
    FakeIdp idp;
    orch::SystemClock clock;
    std::shared_ptr<IssuerDirectory> directory;
    std::unique_ptr<OidcAuthenticator> authenticator;

    explicit Rig(std::function<void(AuthConfig&)> tweak = {}) {
        idp.Add("alpha");
        idp.Add("beta");
        AuthConfig config;
        config.mode = AuthMode::kOidc;
        config.issuers = {idp.ConfigFor("alpha"), idp.ConfigFor("beta")};
        if (tweak) {
            tweak(config);
        }
        directory = std::make_shared<IssuerDirectory>(config, idp, clock);
        authenticator = std::make_unique<OidcAuthenticator>(directory);
    }

    Result<Principal> Auth(const std::string& token) { return authenticator->Authenticate("Bearer " + token); }
};

template <typename T>
std::string Rejection(const Result<T>& result, ErrorCode code = ErrorCode::kUnauthenticated) {
    REQUIRE_FALSE(result);
    CHECK(result.error().code == code);
    return result.error().message;
}

Json Merge(Json base, const Json& more) {
    base.update(more);
    return base;
}

const Json kFull = {
    {"scope", "openid profile offline_access"},
    {"groups", {"users", "orchestrator-admins"}},
    {"preferred_username", "alice"}};

}  // namespace

TEST_CASE("a token with scope and groups is verified locally: no introspection, no userinfo") {
    Rig rig;
    auto principal = rig.Auth(rig.idp.Mint("alpha", kFull));
    REQUIRE(principal);
    CHECK(principal->issuer == "https://alpha.test/");
    CHECK(principal->subject == "user-1");
    CHECK(principal->preferred_username == "alice");
    CHECK(principal->HasScope("offline_access"));
    CHECK(principal->admin);
    CHECK(principal->token_id == "jti-1");
    CHECK(rig.idp.Calls("introspect") == 0);
    CHECK(rig.idp.Calls("userinfo") == 0);
    CHECK(rig.idp.Calls("jwk") == 1);
    REQUIRE(rig.Auth(rig.idp.Mint("alpha", kFull, "ES256")));
    CHECK(rig.idp.Calls("jwk") == 1);
}

TEST_CASE("IAM's default tokens (no scope, no groups) are completed by introspection, cached") {
    Rig rig;
    const std::string token = rig.idp.Mint("alpha", Json::object());
    rig.idp.Get("alpha").introspection[token] = {
        {"active", true}, {"sub", "user-1"}, {"scope", "openid profile"}, {"groups", {"users"}}};
    for (int i = 0; i < 3; ++i) {
        auto principal = rig.Auth(token);
        REQUIRE(principal);
        CHECK(principal->HasScope("profile"));
        CHECK(principal->groups == std::vector<std::string>{"users"});
        CHECK_FALSE(principal->admin);
    }
    CHECK(rig.idp.Calls("introspect") == 1);
    CHECK(rig.idp.Calls("userinfo") == 0);
}

TEST_CASE("an inactive (revoked) token is refused, and the answer is cached briefly") {
    Rig rig;
    const std::string token = rig.idp.Mint("alpha", Json::object());
    CHECK(Rejection(rig.Auth(token)) == "Invalid token: the issuer says the token is not active (expired or revoked)");
    CHECK_FALSE(rig.Auth(token));
    CHECK(rig.idp.Calls("introspect") == 1);
}

TEST_CASE("introspection naming another subject is refused") {
    Rig rig;
    const std::string token = rig.idp.Mint("alpha", Json::object());
    rig.idp.Get("alpha").introspection[token] = {{"active", true}, {"sub", "someone-else"}, {"scope", "openid"}};
    CHECK(Rejection(rig.Auth(token)) == "Invalid token: the issuer's introspection names another subject");
}

TEST_CASE("groups missing everywhere else come from userinfo (only with openid)") {
    Rig rig;
    const std::string token = rig.idp.Mint("alpha", {{"scope", "openid profile"}});
    rig.idp.Get("alpha").userinfo[token] = {{"sub", "user-1"}, {"groups", {"physics"}}, {"organisation_name", "infn"}};
    auto principal = rig.Auth(token);
    REQUIRE(principal);
    CHECK(principal->groups == std::vector<std::string>{"physics"});
    CHECK(principal->organisation == "infn");
    CHECK(rig.Auth(token));
    CHECK(rig.idp.Calls("userinfo") == 1);

    const std::string no_openid = rig.idp.Mint("alpha", {{"scope", "profile"}});
    auto without = rig.Auth(no_openid);
    REQUIRE(without);
    CHECK_FALSE(without->groups.has_value());
    CHECK(rig.idp.Calls("userinfo") == 1);
}

TEST_CASE("EGI Check-in userinfo: groups are the entitlements") {
    Rig rig;
    const std::string token = rig.idp.Mint("alpha", {{"scope", "openid profile"}});
    rig.idp.Get("alpha").userinfo[token] = {
        {"sub", "user-1"},
        {"edu_person_unique_id", "x@egi.eu"},
        {"eduperson_entitlement", {"urn:mace:egi.eu:group:vo.example"}}};
    auto principal = rig.Auth(token);
    REQUIRE(principal);
    CHECK(principal->groups == std::vector<std::string>{"urn:mace:egi.eu:group:vo.example"});
}

TEST_CASE("wlcg.groups as the configured groups claim") {
    Rig rig([](AuthConfig& config) { config.issuers[0].groups_claim = "wlcg.groups"; });
    auto principal = rig.Auth(
        rig.idp.Mint("alpha", {{"scope", "openid profile"}, {"wlcg.groups", {"/users", "/orchestrator-admins"}}})
    );
    REQUIRE(principal);
    CHECK(principal->groups == std::vector<std::string>{"users", "orchestrator-admins"});
    CHECK(principal->wlcg_groups == std::vector<std::string>{"/users", "/orchestrator-admins"});
    CHECK(principal->admin);
}

TEST_CASE("§5.4: a groups claim the token carries, even empty, is checked; wlcg.groups does not replace it") {
    // v4.0.1 reads `groups` and `wlcg.groups` from the access token; a present claim must contain
    // the group (`groups: []` + `wlcg.groups: ["/physics"]` is 403 there).
    Rig rig;
    const auto check = [&](const Json& claims, std::optional<std::string> user_group) {
        auto principal = rig.Auth(rig.idp.Mint("alpha", Merge({{"scope", "openid profile"}}, claims)));
        REQUIRE(principal);
        return CheckUserGroup(*principal, user_group);
    };
    const std::string kNotInGroups = "The group physics is not in the user's authorized groups";
    auto empty_groups = check({{"groups", Json::array()}, {"wlcg.groups", {"/physics"}}}, "physics");
    CHECK(Rejection(empty_groups, ErrorCode::kPermissionDenied) == kNotInGroups);
    auto empty_wlcg = check({{"groups", {"physics"}}, {"wlcg.groups", Json::array()}}, "physics");
    CHECK(Rejection(empty_wlcg, ErrorCode::kPermissionDenied) == kNotInGroups);
    CHECK(
        Rejection(
            check({{"groups", Json::array()}, {"wlcg.groups", Json::array()}}, "physics"), ErrorCode::kPermissionDenied
        ) == "User's token does not contain a group claim or it is empty"
    );
    CHECK(check({{"groups", {"physics"}}, {"wlcg.groups", {"/physics"}}}, "physics"));
    CHECK(rig.idp.Calls("introspect") == 0);  // the token answered: nobody else is asked
    CHECK(rig.idp.Calls("userinfo") == 0);
}

TEST_CASE("an empty groups claim in the token is not completed by introspection") {
    // The token lacks scope, so introspection is asked for it; its groups must not replace the
    // token's own (empty) claim, as they would replace an absent one.
    Rig rig;
    const std::string token = rig.idp.Mint("alpha", {{"groups", Json::array()}});
    rig.idp.Get("alpha").introspection[token] = {
        {"active", true}, {"sub", "user-1"}, {"scope", "openid profile"}, {"groups", {"orchestrator-admins"}}};
    auto principal = rig.Auth(token);
    REQUIRE(principal);
    CHECK(principal->HasScope("profile"));
    CHECK_FALSE(principal->admin);
    CHECK(
        Rejection(CheckUserGroup(*principal, std::string("orchestrator-admins")), ErrorCode::kPermissionDenied) ==
        "User's token does not contain a group claim or it is empty"
    );
}

TEST_CASE("an unknown issuer is refused before any network call") {
    Rig rig;
    FakeIdp other;
    other.Add("evil");
    CHECK(
        Rejection(rig.Auth(other.Mint("evil", kFull))) == "Invalid token: issuer 'https://evil.test/' is not trusted"
    );
    CHECK(rig.idp.TotalCalls() == 0);
}

TEST_CASE("issuer alpha's claims signed with issuer beta's key are refused") {
    Rig rig;
    // beta's key, with its kid: not in alpha's key set.
    Json claims = kFull;
    claims["iss"] = "https://alpha.test/";
    const std::string with_kid =
        test::SignJwt(rig.idp.Get("beta").rsa, "RS256", Merge(claims, {{"sub", "user-1"}, {"exp", EpochSeconds(600)}}));
    CHECK(
        Rejection(rig.Auth(with_kid)) ==
        "Invalid token: no signing key with this key id ('kid') is published by the issuer"
    );
    // beta's key posing under alpha's kid.
    const Json header_payload = Merge(claims, {{"sub", "user-1"}, {"exp", EpochSeconds(600)}});
    const std::string input = test::SigningInput({{"alg", "RS256"}, {"kid", "alpha-rsa1"}}, header_payload);
    const std::string forged = input + "." + Base64UrlEncode(rig.idp.Get("beta").rsa.Sign("RS256", input));
    CHECK(Rejection(rig.Auth(forged)) == "Invalid token: the signature does not verify");
}

TEST_CASE("the algorithm pinned for the issuer is enforced") {
    Rig rig([](AuthConfig& config) { config.issuers[0].algorithms = {JwsAlgorithm::kRs256}; });
    CHECK(
        Rejection(rig.Auth(rig.idp.Mint("alpha", kFull, "ES256"))) ==
        "Invalid token: algorithm ES256 is not allowed for this issuer"
    );
}

TEST_CASE("HS256 keyed with the issuer's public key, and alg none, are refused") {
    Rig rig;
    const Json payload = {
        {"iss", "https://alpha.test/"}, {"sub", "user-1"}, {"exp", EpochSeconds(600)}, {"scope", "openid profile"}};
    const std::string hs =
        test::SignHs256(rig.idp.Get("alpha").rsa.PublicPem(), {{"alg", "HS256"}, {"kid", "alpha-rsa1"}}, payload);
    CHECK(Rejection(rig.Auth(hs)) == "Invalid token: algorithm 'HS256' is never accepted");
    CHECK(Rejection(rig.Auth(test::UnsignedJwt(payload))) == "Invalid token: algorithm 'none' is never accepted");
    CHECK(rig.idp.TotalCalls() == 0);
}

TEST_CASE("audience is checked when configured") {
    Rig rig([](AuthConfig& config) { config.issuers[0].audiences = {"https://orchestrator.test/"}; });
    CHECK(rig.Auth(rig.idp.Mint("alpha", Merge(kFull, {{"aud", "https://orchestrator.test/"}}))));
    CHECK(
        Rejection(rig.Auth(rig.idp.Mint("alpha", Merge(kFull, {{"aud", "vault"}})))) ==
        "Invalid token: the token is not meant for this service (audience)"
    );
}

TEST_CASE("an issuer that cannot be reached gives 503, not 401") {
    Rig rig;
    rig.idp.down = true;
    auto result = rig.Auth(rig.idp.Mint("alpha", kFull));
    REQUIRE_FALSE(result);
    CHECK(result.error().code == ErrorCode::kUnavailable);
}

TEST_CASE("opaque tokens: refused unless an issuer introspects them") {
    Rig refusing;
    CHECK(Rejection(refusing.Auth("opaque-token-value")) == "Invalid token: not a signed JWT");
    CHECK(Rejection(refusing.Auth("a.b.c.d.e")) == "Invalid token: encrypted tokens (JWE) are not supported");

    Rig rig([](AuthConfig& config) { config.issuers[1].opaque_tokens = true; });
    rig.idp.Get("beta").introspection["opaque-token-value"] = {
        {"active", true},
        {"iss", "https://beta.test/"},
        {"sub", "u9"},
        {"scope", "openid profile"},
        {"groups", {"g"}},
        {"exp", EpochSeconds(600)}};
    auto principal = rig.Auth("opaque-token-value");
    REQUIRE(principal);
    CHECK(principal->issuer == "https://beta.test/");
    CHECK(principal->subject == "u9");
    CHECK(principal->groups == std::vector<std::string>{"g"});
    CHECK(
        Rejection(rig.Auth("another-opaque-token")) == "Invalid token: the token is not active at any trusted issuer"
    );
    CHECK(rig.idp.Calls("alpha.test/introspect") == 0);
}

TEST_CASE("failures are logged with a token hash, never the token") {
    Rig rig;
    std::vector<std::string> lines;
    log::SetSink([&](std::string_view line) { lines.emplace_back(line); });
    const std::string expired = rig.idp.Mint("alpha", Merge(kFull, {{"exp", EpochSeconds(-600)}}));
    CHECK(Rejection(rig.Auth(expired)) == "Invalid token: the token has expired");
    log::ResetSink();
    REQUIRE_FALSE(lines.empty());
    bool found_reason = false;
    for (const auto& line : lines) {
        CHECK(line.find(expired.substr(expired.rfind('.') + 1, 20)) == std::string::npos);
        CHECK(line.find(expired.substr(0, 30)) == std::string::npos);
        found_reason = found_reason || line.find("the token has expired") != std::string::npos;
    }
    CHECK(found_reason);
}

// Later requests with a token reuse the principal it verified to; the entry must still end with
// the token (and the clock skew), like a fresh verification would.
TEST_CASE("a token's cached principal ends when the token expires") {
    FakeIdp idp;
    idp.Add("alpha");
    AuthConfig config;
    config.mode = AuthMode::kOidc;
    config.issuers = {idp.ConfigFor("alpha")};
    orch::ManualClock clock(orch::Clock::WallTime(std::chrono::system_clock::now()));
    auto directory = std::make_shared<IssuerDirectory>(config, idp, clock);
    OidcAuthenticator authenticator(directory);
    const std::string header = "Bearer " + idp.Mint("alpha", Merge(kFull, {{"exp", EpochSeconds(120)}}));
    REQUIRE(authenticator.Authenticate(header));
    clock.Advance(std::chrono::seconds(100));
    REQUIRE(authenticator.Authenticate(header));
    CHECK(idp.Calls("jwk") == 1);
    clock.Advance(std::chrono::seconds(100) + config.clock_skew);
    CHECK(Rejection(authenticator.Authenticate(header)) == "Invalid token: the token has expired");
}

TEST_CASE("a signed token whose claims hold a NUL is refused (401), wherever the NUL is") {
    Rig rig;
    const std::string nul("a\0b", 3);
    for (const Json& claims : {
             Merge(kFull, {{"sub", nul}}),
             Merge(kFull, {{"preferred_username", nul}}),
             Merge(kFull, {{"groups", {"users", nul}}}),
             Merge(kFull, {{"scope", "openid " + nul}}),
             Merge(kFull, {{"wlcg.groups", {nul}}}),
         }) {
        INFO(claims.dump());
        CHECK(Rejection(rig.Auth(rig.idp.Mint("alpha", claims))).find("NUL") != std::string::npos);
    }
    CHECK(rig.Auth(rig.idp.Mint("alpha", kFull)));
}
