// Who sees what over HTTP (api-contract.md §5): the real binary trusting two real issuers.
// Deployments end CREATE_FAILED at placement (empty catalogue); ownership is all that matters here.
#include "../../integration/auth/oidc_provider.hpp"
#include "authed_orchestrator.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <set>

namespace {

using orch::Json;
using orch::test::AuthedOrchestrator;
using orch::test::ErrorMessage;
using orch::test::OidcProvider;

std::set<std::string> ListedIds(AuthedOrchestrator& api, const std::string& query, const std::string& token) {
    const auto res = api.Call("GET", "/deployments" + query, token);
    INFO(res.body);
    REQUIRE(res.status == 200);
    std::set<std::string> ids;
    const Json page = Json::parse(res.body);  // kept: the loop runs over a part of it
    for (const auto& d : page["content"]) {
        ids.insert(d["uuid"].get<std::string>());
    }
    UNSCOPED_INFO("GET /deployments" << query << " answered " << res.body);
    return ids;
}

struct TwoIssuers {
    explicit TwoIssuers(std::string auth_extra = "")
        : api{{{{"alpha", alpha.issuer()}, {"beta", beta.issuer()}}, auth_extra}} {}

    OidcProvider& alpha = OidcProvider::Shared("alpha");
    OidcProvider& beta = OidcProvider::Shared("beta");  // IAM's default profile: groups by introspection
    AuthedOrchestrator api;
    std::string alice = alpha.UserToken("alice").access_token;  // admin of alpha
    std::string bob = alpha.UserToken("bob").access_token;
    std::string carol = alpha.UserToken("carol").access_token;
    std::string beta_bob = beta.UserToken("bob").access_token;
    std::string alice_sub = alpha.Users()["alice"]["sub"];
    std::string bob_sub = alpha.Users()["bob"]["sub"];
};

}  // namespace

TEST_CASE("tokens of two issuers work and each user sees what the contract allows", "[e2e][auth]") {
    TwoIssuers t;
    auto& api = t.api;
    const std::string tosca = orch::test::MarathonTemplate();
    const std::string by_bob = api.Create(t.bob, tosca);
    const std::string by_alice = api.Create(t.alice, tosca);
    const std::string by_beta_bob = api.Create(t.beta_bob, tosca);

    SECTION("createdBy records issuer and subject of the token") {
        const auto d = api.WaitFor(by_beta_bob, "CREATE_FAILED", t.beta_bob);
        CHECK(d["createdBy"]["issuer"] == t.beta.issuer());
        CHECK(d["createdBy"]["subject"] == t.beta.Users()["bob"]["sub"]);
        CHECK(api.WaitFor(by_bob, "CREATE_FAILED", t.bob)["createdBy"]["subject"] == t.bob_sub);
    }
    SECTION("lists: users get their own, admins all of their issuer, nobody another issuer's") {
        CHECK(ListedIds(api, "", t.bob) == std::set<std::string>{by_bob});
        CHECK(ListedIds(api, "", t.carol).empty());
        CHECK(ListedIds(api, "", t.alice) == std::set<std::string>{by_bob, by_alice});
        CHECK(ListedIds(api, "", t.beta_bob) == std::set<std::string>{by_beta_bob});
        CHECK(ListedIds(api, "?createdBy=me", t.alice) == std::set<std::string>{by_alice});
        CHECK(
            ListedIds(api, "?createdBy=" + t.bob_sub + "@" + t.alpha.issuer(), t.alice) == std::set<std::string>{by_bob}
        );
        CHECK(
            ListedIds(api, "?createdBy=" + t.bob_sub + "@" + t.alpha.issuer(), t.bob) == std::set<std::string>{by_bob}
        );
    }
    SECTION("createdBy of another subject is for admins only, and must be sub@iss") {
        const std::string other = t.alice_sub + "@" + t.alpha.issuer();
        CHECK(
            ErrorMessage(api.Call("GET", "/deployments?createdBy=" + other, t.bob), 403) ==
            "Only admin can retrieve deployments for " + other
        );
        CHECK(
            ErrorMessage(api.Call("GET", "/deployments?createdBy=nobody", t.bob), 400) ==
            "Value nobody for param createdBy is illegal"
        );
    }
    SECTION("same issuer may read, only the owner may delete (admins too), another issuer gets 404") {
        CHECK(api.Call("GET", "/deployments/" + by_alice, t.bob).status == 200);
        CHECK(
            ErrorMessage(api.Call("DELETE", "/deployments/" + by_alice, t.bob), 403) ==
            "Only the owner of the deployment can perform this operation"
        );
        CHECK(
            ErrorMessage(api.Call("GET", "/deployments/" + by_bob, t.beta_bob), 404) ==
            "The deployment <" + by_bob + "> doesn't exist"
        );
        CHECK(
            ErrorMessage(api.Call("DELETE", "/deployments/" + by_bob, t.beta_bob), 404) ==
            "The deployment <" + by_bob + "> doesn't exist"
        );
        CHECK(
            ErrorMessage(api.Call("GET", "/deployments/" + by_beta_bob, t.alice), 404) ==
            "The deployment <" + by_beta_bob + "> doesn't exist"
        );
        api.WaitFor(by_bob, "CREATE_FAILED", t.bob);
        // v4.0.1 (contract §5.3): admins are not exempt unless admins_operate_on_any is set.
        CHECK(
            ErrorMessage(api.Call("DELETE", "/deployments/" + by_bob, t.alice), 403) ==
            "Only the owner of the deployment can perform this operation"
        );
        CHECK(
            ErrorMessage(api.Call("PUT", "/deployments/" + by_bob, t.alice, Json{{"template", tosca}}.dump()), 403) ==
            "Only the owner of the deployment can perform this operation"
        );
        CHECK(api.Call("DELETE", "/deployments/" + by_bob, t.bob).status == 204);
    }
}

TEST_CASE("with admins_operate_on_any an admin acts on other users' deployments of the issuer only", "[e2e][auth]") {
    TwoIssuers t("  admins_operate_on_any: true\n");
    auto& api = t.api;
    const std::string tosca = orch::test::MarathonTemplate();
    const std::string by_bob = api.Create(t.bob, tosca);
    const std::string by_alice = api.Create(t.alice, tosca);
    const std::string by_beta_bob = api.Create(t.beta_bob, tosca);
    api.WaitFor(by_bob, "CREATE_FAILED", t.bob);
    api.WaitFor(by_alice, "CREATE_FAILED", t.alice);
    CHECK(
        ErrorMessage(api.Call("DELETE", "/deployments/" + by_alice, t.bob), 403) ==
        "Only the owner of the deployment can perform this operation"
    );  // users: still owners only
    CHECK(
        ErrorMessage(api.Call("DELETE", "/deployments/" + by_beta_bob, t.alice), 404) ==
        "The deployment <" + by_beta_bob + "> doesn't exist"
    );                                                                           // another issuer's: not the admin's
    CHECK(api.Call("DELETE", "/deployments/" + by_bob, t.alice).status == 204);  // admin of the same issuer
}
