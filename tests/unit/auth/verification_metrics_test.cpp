// Token verifications are counted by outcome in the process registry (GET /metrics), never with
// anything of the token in a label.
#include "common/metrics.hpp"
#include "fake_idp.hpp"
#include "orchestrator/auth/oidc_authenticator.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

namespace {

double Outcome(const std::string& outcome) {
    const std::string series = "orch_auth_token_verifications_total{outcome=\"" + outcome + "\"} ";
    std::istringstream in(orch::metrics::DefaultRegistry().Render());
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(series, 0) == 0) {
            return std::stod(line.substr(series.size()));
        }
    }
    return 0;
}

}  // namespace

TEST_CASE("token verifications are counted as ok, missing and invalid", "[auth][metrics]") {
    orch::test::FakeIdp idp;
    idp.Add("alpha");
    orch::auth::AuthConfig config;
    config.mode = orch::auth::AuthMode::kOidc;
    config.issuers = {idp.ConfigFor("alpha")};
    auto directory = std::make_shared<orch::auth::IssuerDirectory>(config, idp);
    orch::auth::OidcAuthenticator authenticator(directory);
    const double ok = Outcome("ok");
    const double missing = Outcome("missing");
    const double invalid = Outcome("invalid");
    const std::string token =
        idp.Mint("alpha", {{"scope", "openid profile offline_access"}, {"groups", {"users"}}});
    REQUIRE(authenticator.Authenticate("Bearer " + token));
    REQUIRE(authenticator.Authenticate("Bearer " + token));
    REQUIRE_FALSE(authenticator.Authenticate(""));
    REQUIRE_FALSE(authenticator.Authenticate("Bearer not.a.jwt"));
    CHECK(Outcome("ok") == ok + 2);
    CHECK(Outcome("missing") == missing + 1);
    CHECK(Outcome("invalid") == invalid + 1);
    CHECK(orch::metrics::DefaultRegistry().Render().find(token.substr(0, 20)) == std::string::npos);
}
