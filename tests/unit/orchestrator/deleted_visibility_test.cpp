// Deleted deployments with auth on (docs/api.md, "Differences from the original"), which the e2e
// tests (auth disabled: the local user is admin) cannot reach: a deployment whose delete
// completed is 404 for everyone, and only an admin may ask for its audit record with
// includeDeleted=true. The real handlers and router, an authenticator returning a chosen
// principal and the in-memory store seeded with one deleted deployment.
#include "test_support/fakes.hpp"
#include "test_support/in_memory_stores.hpp"

#include <orchestrator/api/deployment_routes.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;

constexpr const char* kId = "11ed8ab3-6a40-968a-82b7-62f0862dbe46";

// One deleted deployment of bob's, as a row of the in-memory database.
void SeedDeleted(orch::test::InMemoryDatabase& db) {
    auto& d = db.rows()[kId].deployment;
    d.id = kId;
    d.status = orch::domain::Status::kDeleteComplete;
    d.owner = orch::domain::Owner{"https://iam.example/", "bob"};
}

orch::auth::Principal User(const std::string& subject, bool admin) {
    orch::auth::Principal p;
    p.issuer = "https://iam.example/";
    p.subject = subject;
    p.admin = admin;
    p.scopes = {"openid", "profile", "offline_access"};
    return p;
}

struct Harness {
    orch::test::FakeAuthenticator authenticator;
    orch::test::FakeTemplateService templates{orch::tosca::DeploymentSpec{}};
    orch::ManualClock clock;
    orch::test::InMemoryStores stores{clock};
    orch::auth::AuthConfig auth_config;
    orch::api::ApiContext ctx{
        stores.deployments, templates, authenticator, nullptr, auth_config, clock, nullptr, "http://o", {}};
    orch::server::Router router;

    Harness() {
        SeedDeleted(stores.db);
        orch::api::RegisterDeploymentRoutes(router, ctx);
        orch::api::RegisterResourceRoutes(router, ctx);
    }

    orch::server::Response Call(const std::string& method, const std::string& path, const std::string& query = "") {
        orch::server::Request request;
        request.method = method;
        request.path = path;
        request.target = path + (query.empty() ? "" : "?" + query);
        request.query = orch::server::ParseQuery(query);
        request.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer x"}};
        auto match = router.Find(method, path);
        REQUIRE(match.route != nullptr);
        request.path_params = match.params;
        return match.route->handler(request);
    }
};

std::string Message(const orch::server::Response& r) {
    return Json::parse(r.body)["message"];
}

std::int64_t Total(const orch::server::Response& r) {
    return Json::parse(r.body)["page"].value("totalElements", std::int64_t{-1});
}

}  // namespace

TEST_CASE("a deleted deployment is 404 for its owner and for admins who do not ask", "[deployments][auth]") {
    Harness h;
    const std::string path = std::string("/deployments/") + kId;
    for (const bool admin : {false, true}) {
        h.authenticator.principal = User(admin ? "alice" : "bob", admin);
        INFO("admin " << admin);
        const auto res = h.Call("GET", path);
        CHECK(res.status == 404);
        CHECK(Message(res) == std::string("The deployment <") + kId + "> doesn't exist");
        CHECK(h.Call("GET", path + "/resources").status == 404);
        CHECK(h.Call("GET", path + "/log").status == 404);
        CHECK(h.Call("DELETE", path).status == 404);
    }
}

TEST_CASE("includeDeleted=true is for admins only, and only for reading", "[deployments][auth]") {
    Harness h;
    const std::string path = std::string("/deployments/") + kId;
    h.authenticator.principal = User("bob", false);  // the owner himself
    for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
             {"GET", path}, {"GET", path + "/resources"}, {"GET", "/deployments"}}) {
        const auto denied = h.Call(method, target, "includeDeleted=true");
        CHECK(denied.status == 403);
        CHECK(Message(denied) == "Only admin can retrieve deleted deployments");
    }
    CHECK(h.Call("GET", path, "includeDeleted=false").status == 404);
    const auto listed = h.Call("GET", "/deployments");
    CHECK(listed.status == 200);
    CHECK(Total(listed) == 0);  // his deleted deployment is not listed

    h.authenticator.principal = User("alice", true);
    const auto audit = h.Call("GET", path, "includeDeleted=True");
    CHECK(audit.status == 200);
    CHECK(Json::parse(audit.body)["status"] == "DELETE_COMPLETE");
    CHECK(h.Call("GET", path + "/resources", "includeDeleted=true").status == 200);
    const auto audited = h.Call("GET", "/deployments", "includeDeleted=true");
    CHECK(audited.status == 200);
    CHECK(Total(audited) == 1);
    CHECK(h.Call("DELETE", path, "includeDeleted=true").status == 404);  // records cannot change
}
