// Refused requests over HTTP: status, WWW-Authenticate and the contract's {code,title,message}
// body, for a representative set of the authenticator's rules (each rule is tested exhaustively at
// the authenticator level in tests/integration/auth). The real binary, real issuers.
#include "../../integration/auth/oidc_provider.hpp"
#include "authed_orchestrator.hpp"

#include <common/json.hpp>
#include <orchestrator/auth/base64.hpp>

#include <catch2/catch.hpp>

#include <chrono>

namespace {

using orch::Json;
using orch::test::AuthedOrchestrator;
using orch::test::ErrorMessage;
using orch::test::OidcProvider;

long long Now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Claims like the provider's own tokens, for tokens it would never mint.
Json Claims(const OidcProvider& issuer, const std::string& sub) {
    return {
        {"iss", issuer.issuer()},
        {"sub", sub},
        {"aud", "https://orchestrator.test/"},
        {"iat", Now() - 10},
        {"exp", Now() + 600},
        {"scope", "openid profile offline_access"},
        {"groups", {"users"}}};
}

std::string Part(const Json& json) {
    return orch::auth::Base64UrlEncode(json.dump());
}

struct Setup {
    OidcProvider& alpha = OidcProvider::Shared("alpha");
    OidcProvider& beta = OidcProvider::Shared("beta");
    // Audiences are checked, so a token minted for another service is refused.
    AuthedOrchestrator api{
        {{{"alpha", alpha.issuer()}, {"beta", beta.issuer()}},
         "",
         "      audiences: [\"https://orchestrator.test/\"]\n"}};
    std::string bob_sub = alpha.Users()["bob"]["sub"];
};

void CheckInvalidToken(AuthedOrchestrator& api, const std::string& token, const std::string& why) {
    const auto res = api.Call("GET", "/deployments", token);
    CHECK(ErrorMessage(res, 401) == "Invalid token: " + why);
    CHECK(res.Header("WWW-Authenticate").find("error=\"invalid_token\"") != std::string::npos);
}

}  // namespace

TEST_CASE("bad tokens get 401 with the contract body and say why", "[e2e][auth]") {
    Setup t;
    auto& api = t.api;
    const std::string good = t.alpha.UserToken("bob").access_token;
    REQUIRE(api.Call("GET", "/deployments", good).status == 200);  // the setup itself accepts a good token

    SECTION("no token at all") {
        const auto res = api.Call("GET", "/deployments", "");
        CHECK(ErrorMessage(res, 401) == "Full authentication is required to access this resource");
        CHECK(res.Header("WWW-Authenticate") == "Bearer realm=\"oauth\"");
    }
    SECTION("expired") {
        Json claims = Claims(t.alpha, t.bob_sub);
        claims["iat"] = Now() - 7200;
        claims["exp"] = Now() - 3600;
        CheckInvalidToken(api, t.alpha.Sign(claims), "the token has expired");
    }
    SECTION("unknown issuer") {
        Json claims = Claims(t.alpha, t.bob_sub);
        claims["iss"] = "https://iam.unknown.example.org/";
        CheckInvalidToken(api, t.alpha.Sign(claims), "issuer 'https://iam.unknown.example.org/' is not trusted");
    }
    SECTION("a real token of an issuer we do not trust") {
        OidcProvider& gamma = OidcProvider::Shared("gamma");
        CheckInvalidToken(api, gamma.UserToken("bob").access_token, "issuer '" + gamma.issuer() + "' is not trusted");
    }
    SECTION("signed by one trusted issuer, claiming to be the other") {
        const auto res = api.Call("GET", "/deployments", t.beta.Sign(Claims(t.alpha, t.bob_sub)));
        const std::string message = ErrorMessage(res, 401);
        INFO(message);
        // The test providers name their first key alike ("rsa1"): found by kid, refused by signature.
        CHECK(
            (message == "Invalid token: the signature does not verify" ||
             message.rfind("Invalid token: no signing key with this key id", 0) == 0)
        );
    }
    SECTION("alg none") {
        const std::string token =
            Part({{"alg", "none"}, {"typ", "JWT"}}) + "." + Part(Claims(t.alpha, t.bob_sub)) + ".";
        CheckInvalidToken(api, token, "algorithm 'none' is never accepted");
    }
    SECTION("tampered payload") {
        const auto first = good.find('.');
        const auto second = good.find('.', first + 1);
        Json payload = orch::test::UnverifiedPayload(good);
        payload["groups"] = {"users", "orchestrator-admins"};  // promote oneself to admin
        const std::string forged = good.substr(0, first + 1) + Part(payload) + good.substr(second);
        CheckInvalidToken(api, forged, "the signature does not verify");
    }
    SECTION("minted for another service") {
        const auto other = t.alpha.UserToken(
            "bob", "openid profile offline_access", "dashboard", "&resource=https%3A%2F%2Fother-service.test%2F"
        );
        CHECK(other.claims["aud"] == "https://other-service.test/");
        CheckInvalidToken(api, other.access_token, "the token is not meant for this service (audience)");
    }
    SECTION("oversized") {
        CheckInvalidToken(api, std::string(9000, 'a'), "the token is larger than 8192 bytes");
    }
    SECTION("malformed header") {
        const auto res = api.CallWithHeader("GET", "/deployments", "Bearer abc def");
        CHECK(ErrorMessage(res, 401) == "Invalid token: malformed Authorization header");
    }
}

TEST_CASE("writes need the write scopes and a userGroup of the user's own", "[e2e][auth]") {
    Setup t;
    auto& api = t.api;
    const std::string read_only = t.alpha.UserToken("bob", "openid profile").access_token;
    const std::string bob = t.alpha.UserToken("bob").access_token;
    const Json create{{"template", orch::test::MarathonTemplate()}};

    CHECK(api.Call("GET", "/deployments", read_only).status == 200);
    const auto post = api.Call("POST", "/deployments", read_only, create.dump());
    CHECK(ErrorMessage(post, 403).rfind("Insufficient scope for this resource, scope=\"", 0) == 0);
    CHECK(post.Header("WWW-Authenticate").find("error=\"insufficient_scope\"") != std::string::npos);

    const std::string id = api.Create(bob, create["template"]);
    CHECK(
        ErrorMessage(api.Call("DELETE", "/deployments/" + id, read_only), 403)
            .rfind("Insufficient scope for this resource", 0) == 0
    );

    Json with_group = create;
    with_group["userGroup"] = "chemistry";
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", bob, with_group.dump()), 403) ==
        "The group chemistry is not in the user's authorized groups"
    );
    with_group["userGroup"] = "physics";
    CHECK(api.Call("POST", "/deployments", bob, with_group.dump()).status == 201);
    const auto carol = t.alpha.UserToken("carol").access_token;  // no groups at all
    CHECK(
        ErrorMessage(api.Call("POST", "/deployments", carol, with_group.dump()), 403) ==
        "User's token does not contain a group claim or it is empty"
    );
}

TEST_CASE("a group claim the token carries empty is checked like any other (v4.0.1)", "[e2e][auth]") {
    // Contract §5.4: `groups` present and without G is 403, whatever `wlcg.groups` says.
    Setup t;
    auto& api = t.api;
    Json claims = Claims(t.alpha, t.bob_sub);
    claims["groups"] = {"physics"};
    claims["wlcg.groups"] = {"/physics"};
    const std::string both = t.alpha.Sign(claims);
    claims["groups"] = Json::array();
    const std::string empty_groups = t.alpha.Sign(claims);
    claims["groups"] = {"physics"};
    claims["wlcg.groups"] = Json::array();
    const std::string empty_wlcg = t.alpha.Sign(claims);

    CHECK(api.Call("GET", "/deployments?userGroup=physics", both).status == 200);  // the control
    const std::string kNotInGroups = "The group physics is not in the user's authorized groups";
    CHECK(ErrorMessage(api.Call("GET", "/deployments?userGroup=physics", empty_groups), 403) == kNotInGroups);
    CHECK(ErrorMessage(api.Call("GET", "/deployments?userGroup=physics", empty_wlcg), 403) == kNotInGroups);
    const Json create{{"template", orch::test::MarathonTemplate()}, {"userGroup", "physics"}};
    CHECK(ErrorMessage(api.Call("POST", "/deployments", empty_groups, create.dump()), 403) == kNotInGroups);
}
