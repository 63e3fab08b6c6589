// Acting for the user after their token expired: token exchange and refresh at a real provider.
#include "oidc_provider.hpp"
#include "orchestrator/auth/auth_setup.hpp"

#include <catch2/catch.hpp>

#include <thread>

using namespace orch;
using namespace orch::auth;
using orch::test::OidcProvider;

namespace {

struct Rig {
    std::unique_ptr<http::Client> real;
    std::unique_ptr<test::CountingClient> http;
    InMemoryRefreshTokenStore store;
    SystemClock clock;
    AuthServices services;

    Rig() {
        auto client = http::MakeClient({});
        REQUIRE(client);
        real = std::move(*client);
        http = std::make_unique<test::CountingClient>(*real);
        // No clock skew, so a five-second token really is expired five seconds later.
        auto tree = ConfigTree::FromYaml(
            test::AuthYaml({"alpha", "beta"}, "      exchange_audience: vault\n", "  clock_skew: 0s\n"), "it.yaml"
        );
        REQUIRE(tree);
        auto setup = SetUpAuth(*tree, *http, store, clock);
        REQUIRE(setup);
        services = std::move(*setup);
    }

    Result<Principal> Auth(const std::string& token) { return services.authenticator->Authenticate("Bearer " + token); }
    TokenKeeper& keeper() { return *services.token_keeper; }
};

}  // namespace

TEST_CASE("a deployment outlives the user's token: refresh tokens keep working after it expired") {
    Rig rig;
    OidcProvider& alpha = OidcProvider::Shared("alpha");
    // The user calls POST /deployments with a short-lived token from the dashboard client.
    const auto user = alpha.UserToken("bob", "openid profile offline_access", "dashboard", "&ttl=5");
    auto principal = rig.Auth(user.access_token);
    REQUIRE(principal);
    REQUIRE(rig.keeper().Enroll(*principal, user.access_token));
    CHECK(rig.http->Count("/token") == 1);  // one RFC 8693 exchange

    // The stored refresh token is encrypted: neither the row nor anything else holds it in clear.
    auto row = rig.store.Get(principal->issuer, principal->subject);
    REQUIRE(row);
    REQUIRE(row->has_value());
    CHECK((*row)->rfind("v1.", 0) == 0);

    // A few seconds later the user's token is dead...
    const auto expiry =
        std::chrono::system_clock::time_point(std::chrono::seconds(user.claims.at("exp").get<std::int64_t>()));
    std::this_thread::sleep_until(expiry + std::chrono::milliseconds(1100));
    auto late = rig.Auth(user.access_token);
    REQUIRE_FALSE(late);
    CHECK(late.error().message == "Invalid token: the token has expired");

    // ...but the workflow still gets tokens for bob, minted from the refresh token.
    rig.keeper().Invalidate(principal->issuer, principal->subject);
    auto fresh = rig.keeper().AccessTokenFor(principal->issuer, principal->subject);
    REQUIRE(fresh);
    CHECK(rig.http->Count("/token") == 2);  // a refresh_token grant
    CHECK(*fresh != user.access_token);
    auto as_bob = rig.Auth(*fresh);
    REQUIRE(as_bob);
    CHECK(as_bob->subject == principal->subject);
    CHECK(as_bob->client_id == "orchestrator");  // obtained by the orchestrator's client, as in IAM
    CHECK(test::UnverifiedPayload(*fresh).at("act").at("sub") == "orchestrator");
    // Cached: the next downstream call does not go to the issuer.
    CHECK(rig.keeper().AccessTokenFor(principal->issuer, principal->subject).value() == *fresh);
    CHECK(rig.http->Count("/token") == 2);

    // Bob comes back later to delete the deployment with a new token: the stored refresh token is
    // still active at the issuer, so nothing is exchanged again.
    const auto again = alpha.UserToken("bob");
    REQUIRE(rig.keeper().Enroll(*rig.Auth(again.access_token), again.access_token));
    CHECK(rig.http->Count("/token") == 2);
    CHECK(rig.http->Count("/introspect") == 1);
}

TEST_CASE("IAM's rule: no offline exchange of a token the orchestrator's own client obtained") {
    Rig rig;
    OidcProvider& alpha = OidcProvider::Shared("alpha");
    const auto own = alpha.UserToken("alice", "openid profile offline_access", "orchestrator");
    auto principal = rig.Auth(own.access_token);
    REQUIRE(principal);
    auto status = rig.keeper().Enroll(*principal, own.access_token);
    REQUIRE_FALSE(status);
    CHECK(status.error().code == ErrorCode::kPermissionDenied);
    CHECK(status.error().message.find("refused the request (invalid_request") != std::string::npos);
    CHECK_FALSE(rig.store.Get(principal->issuer, principal->subject)->has_value());
}

TEST_CASE("the exchanged grant carries the orchestrator's configured scopes, whatever the user's token had") {
    Rig rig;
    OidcProvider& beta = OidcProvider::Shared("beta");
    const auto user = beta.UserToken("alice", "openid profile");
    auto principal = rig.Auth(user.access_token);
    REQUIRE(principal);
    REQUIRE(rig.keeper().Enroll(*principal, user.access_token));
    auto token = rig.keeper().AccessTokenFor(principal->issuer, principal->subject);
    REQUIRE(token);
    auto as_alice = rig.Auth(*token);
    REQUIRE(as_alice);
    CHECK(as_alice->HasScope("offline_access"));
    CHECK(as_alice->HasScope("fts:submit-transfer"));
}

TEST_CASE("a refresh token the issuer does not know is refused and not stored") {
    Rig rig;
    OidcProvider& alpha = OidcProvider::Shared("alpha");
    auto principal = rig.Auth(alpha.UserToken("carol").access_token);
    REQUIRE(principal);
    auto status = rig.keeper().EnrollRefreshToken(*principal, "made-up-refresh-token-value");
    REQUIRE_FALSE(status);
    CHECK(status.error().code == ErrorCode::kUnauthenticated);
    CHECK(status.error().message.find("the user has to log in again") != std::string::npos);
    CHECK(status.error().message.find("made-up-refresh-token-value") == std::string::npos);
    CHECK_FALSE(rig.store.Get(principal->issuer, principal->subject)->has_value());
}
