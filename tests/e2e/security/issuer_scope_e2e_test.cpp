// Owner filters that crossed issuers (issue 16, class 3): createdBy=<sub>@<other issuer> listed
// the other issuer's deployments and schedules, and an admin's file notification fired every
// issuer's schedules. The real binary trusting two real issuers (the `oidc` fixture).
#include "../../integration/auth/oidc_provider.hpp"
#include "../auth/authed_orchestrator.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>

namespace {

using orch::Json;
using orch::test::AuthedOrchestrator;
using orch::test::OidcProvider;

struct TwoIssuers {
    OidcProvider& alpha = OidcProvider::Shared("alpha");
    OidcProvider& beta = OidcProvider::Shared("beta");
    AuthedOrchestrator api{{{{"alpha", alpha.issuer()}, {"beta", beta.issuer()}}}};
    std::string alpha_admin = alpha.UserToken("alice").access_token;
    std::string alpha_bob = alpha.UserToken("bob").access_token;
    std::string beta_admin = beta.UserToken("alice").access_token;
    std::string beta_bob = beta.UserToken("bob").access_token;
    std::string beta_bob_owner = std::string(beta.Users()["bob"]["sub"]) + "@" + beta.issuer();
    std::string alpha_bob_owner = std::string(alpha.Users()["bob"]["sub"]) + "@" + alpha.issuer();

    std::set<std::string> Listed(const std::string& path, const std::string& token) {
        const auto res = api.Call("GET", path, token);
        INFO("GET " << path << " answered " << res.body);
        REQUIRE(res.status == 200);
        std::set<std::string> ids;
        const Json page = Json::parse(res.body);
        for (const auto& item : page["content"]) {
            ids.insert(item.contains("uuid") ? item["uuid"].get<std::string>() : item["id"].get<std::string>());
        }
        return ids;
    }

    std::string Schedule(const std::string& token) {
        const auto res = api.Call(
            "POST",
            "/schedules",
            token,
            Json{
                {"template", orch::test::MarathonTemplate()},
                {"fileExpression", "user\\.alice:.*"},
                {"replicationExpression", "CNAF_DISK"},
                {"numberOfReplicas", 1}}
                .dump()
        );
        INFO(res.body);
        REQUIRE(res.status == 201);
        const Json body = Json::parse(res.body);
        return body.contains("uuid") ? body["uuid"].get<std::string>() : body["id"].get<std::string>();
    }
};

std::set<std::string> FiredSchedules(const orch::http::ClientResponse& res) {
    INFO(res.body);
    REQUIRE(res.status == 200);
    std::set<std::string> ids;
    const Json outcome = Json::parse(res.body);
    for (const auto& e : outcome["events"]) {
        ids.insert(e["schedule"].get<std::string>());
    }
    return ids;
}

}  // namespace

TEST_CASE("createdBy of another issuer lists nothing, for admins and users alike", "[e2e][security][auth]") {
    TwoIssuers t;
    const std::string by_beta_bob = t.api.Create(t.beta_bob, orch::test::MarathonTemplate());
    const std::string by_alpha_bob = t.api.Create(t.alpha_bob, orch::test::MarathonTemplate());
    // The admin of alpha asks for beta's bob by name: not alpha's to see (a GET by id is 404).
    CHECK(t.Listed("/deployments?createdBy=" + t.beta_bob_owner, t.alpha_admin).empty());
    CHECK(t.Listed("/deployments", t.alpha_admin) == std::set<std::string>{by_alpha_bob});
    // Each issuer's own still lists as before.
    CHECK(t.Listed("/deployments?createdBy=" + t.beta_bob_owner, t.beta_admin) == std::set<std::string>{by_beta_bob});
    CHECK(t.Listed("/deployments?createdBy=" + t.beta_bob_owner, t.beta_bob) == std::set<std::string>{by_beta_bob});
    CHECK(
        t.Listed("/deployments?createdBy=" + t.alpha_bob_owner, t.alpha_admin) == std::set<std::string>{by_alpha_bob}
    );

    const std::string beta_schedule = t.Schedule(t.beta_bob);
    const std::string alpha_schedule = t.Schedule(t.alpha_bob);
    CHECK(t.Listed("/schedules?createdBy=" + t.beta_bob_owner, t.alpha_admin).empty());
    CHECK(t.Listed("/schedules", t.alpha_admin) == std::set<std::string>{alpha_schedule});
    CHECK(t.Listed("/schedules?createdBy=" + t.beta_bob_owner, t.beta_admin) == std::set<std::string>{beta_schedule});
}

TEST_CASE("an admin's file notification fires only the admin's issuer's schedules", "[e2e][security][auth]") {
    TwoIssuers t;
    const std::string alpha_schedule = t.Schedule(t.alpha_bob);
    const std::string beta_schedule = t.Schedule(t.beta_bob);
    const auto notify = [&](const std::string& token, const std::string& name) {
        return t.api.Call(
            "POST", "/schedules/notifications", token, Json{{"scope", "user.alice"}, {"name", name}}.dump()
        );
    };
    CHECK(FiredSchedules(notify(t.alpha_admin, "f1.root")) == std::set<std::string>{alpha_schedule});
    CHECK(FiredSchedules(notify(t.beta_admin, "f1.root")) == std::set<std::string>{beta_schedule});
    // Events carry their deployments: another issuer's schedule has none for the caller.
    const auto events = [&](const std::string& id, const std::string& token) {
        const auto res = t.api.Call("GET", "/schedules/" + id + "/events", token);
        INFO(res.body);
        REQUIRE(res.status == 200);
        return Json::parse(res.body)["page"]["totalElements"].get<int>();
    };
    CHECK(events(alpha_schedule, t.alpha_bob) == 1);
    CHECK(events(alpha_schedule, t.beta_bob) == 0);
    CHECK(events(alpha_schedule, t.beta_admin) == 0);
}
