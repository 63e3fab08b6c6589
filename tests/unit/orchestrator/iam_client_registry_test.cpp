// The app's IamClientRegistry over auth's keeper: what it refuses before any record is written or
// any issuer is called (a node naming another issuer than the owner's, an issuer outside
// iam_clients.issuers), the sweep's work list, and the configurations MakeIamClients refuses.
#include "test_support/handler_harness.hpp"
#include "test_support/in_memory_iam_client_store.hpp"

#include <common/http_client.hpp>
#include <orchestrator/app/wiring_iam_clients.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::ErrorCode;

constexpr const char* kAlpha = "https://alpha.example.org/";
constexpr const char* kBeta = "https://beta.example.org/";

orch::auth::AuthServices Auth(orch::http::Client& http, const orch::Clock& clock, orch::auth::AuthMode mode) {
    orch::auth::AuthServices auth;
    auth.config.mode = mode;
    auth.config.token_key = std::string(32, 'k');
    for (const char* iss : {kAlpha, kBeta}) {
        orch::auth::IssuerConfig issuer;
        issuer.name = iss == kAlpha ? "alpha" : "beta";
        issuer.issuer = iss;
        auth.config.issuers.push_back(issuer);
    }
    auth.issuers = std::make_shared<orch::auth::IssuerDirectory>(auth.config, http, clock);
    return auth;
}

struct Rig {
    orch::test::HandlerHarness api;
    std::unique_ptr<orch::http::Client> http = std::move(*orch::http::MakeClient({}));
    orch::test::InMemoryIamClientStore store;
    orch::auth::AuthServices auth = Auth(*http, api.clock, orch::auth::AuthMode::kOidc);

    orch::Result<orch::app::IamClientWiring> Make(orch::app::IamClientConfig config) {
        return orch::app::MakeIamClients(config, auth, *http, store, api.stores.workflow, api.clock);
    }
    orch::app::IamClientWiring Enabled(std::vector<std::string> issuers = {}) {
        orch::app::IamClientConfig config;
        config.enabled = true;
        config.issuers = std::move(issuers);
        auto wiring = Make(config);
        REQUIRE(wiring);
        REQUIRE(wiring->registry);
        return std::move(*wiring);
    }
};

orch::workflow::IamClientRequest Node(std::string issuer = "") {
    return {"sso", std::move(issuer), "openid", {"https://svc.example.org/cb"}};
}

}  // namespace

TEST_CASE("a node naming another issuer than the owner's is refused before anything is recorded", "[iam]") {
    Rig rig;
    auto wiring = rig.Enabled();
    const orch::domain::Owner owner{kAlpha, "bob"};
    const auto refused = wiring.registry->Register("d1", owner, "token", Node(kBeta));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kInvalidArgument);
    CHECK(refused.error().message.find("owner's") != std::string::npos);
    CHECK(rig.store.ForDeployment("d1").value().empty());
}

TEST_CASE("an owner's issuer outside iam_clients.issuers gets no client", "[iam]") {
    Rig rig;
    auto wiring = rig.Enabled({kAlpha});
    const auto refused = wiring.registry->Register("d1", {kBeta, "bob"}, "token", Node());
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kInvalidArgument);
    CHECK(rig.store.ForDeployment("d1").value().empty());
    // An issuer no auth.issuers entry trusts is refused the same way.
    CHECK(
        wiring.registry->Register("d1", {"https://evil.example.org/", "bob"}, "t", Node()).error().code ==
        ErrorCode::kInvalidArgument
    );
}

TEST_CASE("the sweep's work list names each deployment once, oldest record first", "[iam]") {
    Rig rig;
    auto wiring = rig.Enabled();
    int n = 0;
    for (const char* deployment : {"d2", "d1", "d2", "d3"}) {
        orch::auth::IamClientRecord r;
        r.id = "00000000-0000-4000-8000-00000000000" + std::to_string(++n);
        r.deployment_id = deployment;
        r.node_name = "sso";
        r.issuer = kAlpha;
        r.created_at = rig.api.clock.now();
        REQUIRE(rig.store.Reserve(r));
        rig.api.clock.Advance(std::chrono::seconds(1));
    }
    const auto all = wiring.registry->DeploymentsWithClients(rig.api.clock.now(), 10).value();
    CHECK(all == std::vector<std::string>{"d2", "d1", "d3"});
    const auto older = wiring.registry->DeploymentsWithClients(rig.api.clock.now() - std::chrono::seconds(2), 10);
    CHECK(older.value() == std::vector<std::string>{"d2", "d1"});
}

TEST_CASE("IAM clients need OIDC and trusted issuers, and disabled they are not wired", "[iam][config]") {
    Rig rig;
    orch::app::IamClientConfig config;
    auto off = rig.Make(config);
    REQUIRE(off);
    CHECK(off->registry == nullptr);
    CHECK(off->sweeper == nullptr);

    config.enabled = true;
    config.issuers = {"https://unknown.example.org/"};
    auto untrusted = rig.Make(config);
    REQUIRE_FALSE(untrusted);
    CHECK(untrusted.error().message.find("iam_clients.issuers") != std::string::npos);

    config.issuers.clear();
    rig.auth = Auth(*rig.http, rig.api.clock, orch::auth::AuthMode::kDisabled);
    auto no_auth = rig.Make(config);
    REQUIRE_FALSE(no_auth);
    CHECK(no_auth.error().message.find("iam_clients.enabled") != std::string::npos);
}
