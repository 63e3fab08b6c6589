// Tokens, refresh tokens and client secrets never reach the logs, on success and failure paths.
#include "../../unit/auth/test_jwt.hpp"
#include "common/log.hpp"
#include "oidc_provider.hpp"
#include "orchestrator/auth/auth_setup.hpp"

#include <catch2/catch.hpp>

using namespace orch;
using namespace orch::auth;
using orch::test::OidcProvider;

namespace {

// Every secret, and pieces of it long enough to matter (a log that cut a token in half leaks too).
std::vector<std::string> Fragments(const std::vector<std::string>& secrets) {
    std::vector<std::string> out;
    for (const auto& secret : secrets) {
        for (std::size_t start = 0; start + 16 <= secret.size(); start += 8) {
            const std::string piece = secret.substr(start, 16);
            if (piece.rfind("eyJ", 0) != 0) {  // base64 of '{"' begins every JWT part: not secret
                out.push_back(piece);
            }
        }
    }
    return out;
}

}  // namespace

TEST_CASE("secrets never appear in logs") {
    std::vector<std::string> lines;
    log::SetLevel(log::Level::kTrace);
    log::SetSink([&](std::string_view line) { lines.emplace_back(line); });

    OidcProvider& alpha = OidcProvider::Shared("alpha");
    OidcProvider& beta = OidcProvider::Shared("beta");
    auto real = http::MakeClient({});
    REQUIRE(real);
    InMemoryRefreshTokenStore store;
    const SystemClock clock;
    auto tree = ConfigTree::FromYaml(test::AuthYaml({"alpha", "beta"}), "logs.yaml");
    REQUIRE(tree);
    auto services = SetUpAuth(*tree, **real, store, clock);
    REQUIRE(services);
    auto& authenticator = *services->authenticator;
    auto& keeper = *services->token_keeper;

    std::vector<std::string> secrets = {"orchestrator-secret", "dashboard-secret", std::string(64, '7')};
    const auto bob = alpha.UserToken("bob");
    const auto carol = beta.UserToken("carol");  // introspection and userinfo path
    secrets.insert(secrets.end(), {bob.access_token, bob.refresh_token, carol.access_token, carol.refresh_token});
    auto principal = authenticator.Authenticate("Bearer " + bob.access_token);
    REQUIRE(principal);
    REQUIRE(authenticator.Authenticate("Bearer " + carol.access_token));
    REQUIRE(keeper.Enroll(*principal, bob.access_token));
    keeper.Invalidate(principal->issuer, principal->subject);
    auto downstream = keeper.AccessTokenFor(principal->issuer, principal->subject);
    REQUIRE(downstream);
    secrets.push_back(*downstream);

    // Failure paths, where the original logged or echoed the token.
    Json expired_claims = test::UnverifiedPayload(bob.access_token);
    expired_claims["exp"] = test::EpochSeconds(-600);
    const std::string expired = alpha.Sign(expired_claims);
    const std::string forged = beta.Sign(test::UnverifiedPayload(bob.access_token));
    const std::string garbage = "not-a-jwt-but-a-long-opaque-secret-value-0123456789";
    secrets.insert(secrets.end(), {expired, forged, garbage});
    for (const auto& bad : {expired, forged, garbage, std::string("x") + bob.access_token}) {
        CHECK_FALSE(authenticator.Authenticate("Bearer " + bad));
    }
    CHECK_FALSE(keeper.EnrollRefreshToken(*principal, "refresh-secret-that-the-issuer-rejects"));
    secrets.push_back("refresh-secret-that-the-issuer-rejects");

    log::ResetSink();
    log::SetLevel(log::Level::kInfo);
    REQUIRE(lines.size() >= 8);  // the paths above did log: the check below is not vacuous
    const auto fragments = Fragments(secrets);
    REQUIRE(fragments.size() > 100);
    for (const auto& line : lines) {
        for (const auto& fragment : fragments) {
            if (line.find(fragment) != std::string::npos) {
                FAIL("a secret fragment appears in the log line: " + line.substr(0, 200));
            }
        }
    }
}
