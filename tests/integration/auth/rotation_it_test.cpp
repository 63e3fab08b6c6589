// Key rotation at a running provider (IAM's rolling procedure), seen by a running verifier.
#include "oidc_provider.hpp"
#include "orchestrator/auth/auth_setup.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using orch::test::OidcProvider;

TEST_CASE("key rotation at the provider is picked up without restart") {
    // A private provider: rotating the fixture's keys would disturb tests running in parallel.
    auto provider = OidcProvider::StartOwn("rotating", "full");
    auto real = http::MakeClient({});
    REQUIRE(real);
    test::CountingClient http(**real);
    InMemoryRefreshTokenStore store;
    const SystemClock clock;
    const std::string yaml =
        "auth:\n  token_key: " + std::string(64, '1') +
        "\n  jwks_min_refresh_interval: 0s\n  issuers:\n    rot:\n      issuer: " + provider->issuer() +
        "\n      client_id: orchestrator\n      client_secret: orchestrator-secret\n";
    auto tree = ConfigTree::FromYaml(yaml, "rotation.yaml");
    REQUIRE(tree);
    auto services = SetUpAuth(*tree, http, store, clock);
    REQUIRE(services);
    auto verify = [&](const std::string& token) {
        return services->authenticator->Authenticate("Bearer " + token);
    };

    const auto before = provider->UserToken("bob");
    CHECK(before.claims.empty() == false);
    REQUIRE(verify(before.access_token));
    CHECK(http.Count("/jwk") == 1);

    // Step 1: a new key is published and used; the old one stays published.
    const std::string kid2 = provider->RotateKey(false);
    const auto after = provider->UserToken("bob");
    CHECK(test::UnverifiedPayload(after.access_token).at("sub") == before.claims.at("sub"));
    auto fresh = verify(after.access_token);
    REQUIRE(fresh);
    CHECK(http.Count("/jwk") == 2);  // the unknown kid caused one refresh
    CHECK(verify(before.access_token));
    CHECK(verify(after.access_token));
    CHECK(http.Count("/jwk") == 2);

    // Step 2: the old key is withdrawn. Once we refresh (on the next new kid), tokens signed with
    // it stop verifying.
    const std::string kid3 = provider->RotateKey(true);
    CHECK(kid3 != kid2);
    REQUIRE(verify(provider->UserToken("bob").access_token));
    CHECK(http.Count("/jwk") == 3);
    auto withdrawn = verify(before.access_token);
    REQUIRE_FALSE(withdrawn);
    CHECK(
        withdrawn.error().message == "Invalid token: no signing key with this key id ('kid') is published by the issuer"
    );
}
