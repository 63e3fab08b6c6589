// Token verifications are counted by outcome (GET /metrics) by the decorator main puts around the
// OIDC authenticator, never with anything of the token in a label; the authenticator itself
// knows nothing of metrics.
#include "common/metrics.hpp"
#include "fake_idp.hpp"
#include "orchestrator/auth/oidc_authenticator.hpp"
#include "orchestrator/ops/metered_authenticator.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

namespace {

double Outcome(const orch::metrics::Registry& registry, const std::string& outcome) {
    const std::string series = "orch_auth_token_verifications_total{outcome=\"" + outcome + "\"} ";
    std::istringstream in(registry.Render());
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(series, 0) == 0) {
            return std::stod(line.substr(series.size()));
        }
    }
    return 0;
}

// Answers what it is told to, for the outcomes a real issuer is hard to provoke into.
class ScriptedAuthenticator final : public orch::auth::Authenticator {
   public:
    explicit ScriptedAuthenticator(orch::Error error) : error_(std::move(error)) {}
    orch::Result<orch::auth::Principal> Authenticate(std::string_view) override { return error_; }

   private:
    orch::Error error_;
};

}  // namespace

TEST_CASE("token verifications are counted as ok, missing and invalid", "[auth][metrics]") {
    orch::test::FakeIdp idp;
    const orch::SystemClock clock;
    idp.Add("alpha");
    orch::auth::AuthConfig config;
    config.mode = orch::auth::AuthMode::kOidc;
    config.issuers = {idp.ConfigFor("alpha")};
    auto directory = std::make_shared<orch::auth::IssuerDirectory>(config, idp, clock);
    orch::auth::OidcAuthenticator inner(directory);
    orch::metrics::Registry registry;
    orch::ops::MeteredAuthenticator authenticator(inner, registry);
    const std::string token = idp.Mint("alpha", {{"scope", "openid profile offline_access"}, {"groups", {"users"}}});
    REQUIRE(authenticator.Authenticate("Bearer " + token));
    REQUIRE(authenticator.Authenticate("Bearer " + token));
    REQUIRE_FALSE(authenticator.Authenticate(""));
    REQUIRE_FALSE(authenticator.Authenticate("Bearer not.a.jwt"));
    CHECK(Outcome(registry, "ok") == 2);
    CHECK(Outcome(registry, "missing") == 1);
    CHECK(Outcome(registry, "invalid") == 1);
    CHECK(registry.Render().find(token.substr(0, 20)) == std::string::npos);
}

TEST_CASE("an unreachable issuer and an internal failure are counted apart", "[auth][metrics]") {
    orch::metrics::Registry registry;
    ScriptedAuthenticator down(orch::Error::Unavailable("issuer unreachable"));
    ScriptedAuthenticator broken(orch::Error::Internal("bug"));
    orch::ops::MeteredAuthenticator metered_down(down, registry);
    orch::ops::MeteredAuthenticator metered_broken(broken, registry);
    REQUIRE_FALSE(metered_down.Authenticate("Bearer x"));
    REQUIRE_FALSE(metered_broken.Authenticate("Bearer x"));
    CHECK(Outcome(registry, "unavailable") == 1);
    CHECK(Outcome(registry, "error") == 1);
    CHECK(Outcome(registry, "ok") == 0);
}
