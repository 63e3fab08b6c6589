// The issuer caches (discovery document, JWKS) age by the clock the directory is given: with a
// ManualClock their expiry is shown without sleeping. Before the clock was injected they read
// steady_clock themselves, so a day-long discovery max-age could not be tested at all.
#include "fake_idp.hpp"
#include "orchestrator/auth/issuer_directory.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;

namespace {

struct Rig {
    test::FakeIdp idp;
    ManualClock clock;
    std::unique_ptr<IssuerDirectory> directory;
    IssuerContext* alpha = nullptr;

    Rig() {
        idp.Add("alpha");
        AuthConfig config;
        config.mode = AuthMode::kOidc;
        config.issuers = {idp.ConfigFor("alpha")};
        config.discovery_max_age = std::chrono::hours(24);
        config.jwks_max_age = std::chrono::hours(1);
        config.jwks_min_refresh_interval = std::chrono::seconds(30);
        directory = std::make_unique<IssuerDirectory>(config, idp, clock);
        alpha = directory->Find(idp.Get("alpha").url);
        REQUIRE(alpha != nullptr);
    }

    int Discoveries() const { return idp.Calls(".well-known/openid-configuration"); }
    int KeyFetches() const { return idp.Calls("/jwk"); }
};

}  // namespace

TEST_CASE("the discovery document is reused for discovery_max_age of clock time, then fetched again", "[auth]") {
    Rig rig;
    REQUIRE(rig.alpha->client.Endpoints());
    rig.clock.Advance(std::chrono::hours(23));
    REQUIRE(rig.alpha->client.Endpoints());
    CHECK(rig.Discoveries() == 1);
    rig.clock.Advance(std::chrono::hours(2));
    REQUIRE(rig.alpha->client.Endpoints());
    CHECK(rig.Discoveries() == 2);
}

TEST_CASE("a failed discovery refresh keeps the endpoints and waits another max-age", "[auth]") {
    Rig rig;
    REQUIRE(rig.alpha->client.Endpoints());
    rig.clock.Advance(std::chrono::hours(25));
    rig.idp.down = true;
    const auto kept = rig.alpha->client.Endpoints();
    REQUIRE(kept);
    CHECK(kept->jwks_uri == rig.idp.Get("alpha").url + "jwk");
    rig.idp.down = false;
    rig.clock.Advance(std::chrono::hours(1));
    REQUIRE(rig.alpha->client.Endpoints());
    CHECK(rig.Discoveries() == 2);  // the failed one only: no retry on every call
}

TEST_CASE("the directory's signing keys go stale after jwks_max_age of clock time", "[auth]") {
    Rig rig;
    REQUIRE(rig.alpha->keys.Find(std::nullopt, JwsAlgorithm::kRs256));
    rig.clock.Advance(std::chrono::minutes(59));
    REQUIRE(rig.alpha->keys.Find(std::nullopt, JwsAlgorithm::kRs256));
    CHECK(rig.KeyFetches() == 1);
    rig.clock.Advance(std::chrono::minutes(2));
    REQUIRE(rig.alpha->keys.Find(std::nullopt, JwsAlgorithm::kRs256));
    CHECK(rig.KeyFetches() == 2);
}
