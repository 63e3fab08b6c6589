// Class 5 of issue 16: callbacks must not reach the orchestrator's own host or network unless
// the operator allows it. Refused at create for literal addresses; at delivery for host names
// that resolve to such addresses; redirects never followed.
#include "../api/api_harness.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/raw_http.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <thread>

namespace {

using orch::Json;
using orch::test::ApiHarness;
using orch::test::MarathonTemplate;

std::shared_ptr<orch::test::FixtureRoutes> CallbackRoutes() {
    auto routes = std::make_shared<orch::test::FixtureRoutes>();
    for (const char* path : {"/cb", "/target"}) {
        routes->Route("POST", path, [](const auto&) {
            return orch::test::FixtureResponse{200, "application/json", "{}"};
        });
    }
    return routes;
}

// Waits (bounded) until `done` holds; returns whether it did.
template <typename F>
bool Eventually(F done, std::chrono::seconds limit = std::chrono::seconds(15)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (done()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
}

std::string CreateWithCallback(ApiHarness& api, const std::string& callback) {
    const auto res =
        api.Call("POST", "/deployments", Json{{"template", MarathonTemplate()}, {"callback", callback}}.dump());
    REQUIRE(res.status == 201);
    return Json::parse(res.body)["uuid"];
}

}  // namespace

TEST_CASE("callbacks to internal literal addresses are refused at create with 400", "[e2e][security][egress]") {
    ApiHarness api("egress-create", "");
    for (const std::string callback :
         {"http://127.0.0.1:9/cb",
          "http://10.1.2.3/cb",
          "http://169.254.169.254/latest/meta-data/",
          "http://[::1]:9/cb",
          "http://2130706433:9/cb",
          "http://[::ffff:127.0.0.1]:9/",
          "http://0.0.0.0:9/",
          "http://192.168.1.1/",
          "http://100.64.0.1/",
          "https://[fd00:ec2::254]/"}) {
        INFO(callback);
        const auto res =
            api.Call("POST", "/deployments", Json{{"template", MarathonTemplate()}, {"callback", callback}}.dump());
        CHECK(res.status == 400);
        const auto body = Json::parse(res.body);
        CHECK(body["code"] == 400);
        CHECK(std::string(body["message"]).find("'callback'") != std::string::npos);
    }
    const auto schedule = api.Call(
        "POST",
        "/schedules",
        Json{
            {"template", MarathonTemplate()},
            {"fileExpression", "a"},
            {"replicationExpression", "X"},
            {"numberOfReplicas", 1},
            {"callback", "http://169.254.169.254/"}}
            .dump()
    );
    CHECK(schedule.status == 400);
    CHECK(Json::parse(api.Call("GET", "/deployments").body)["page"]["totalElements"] == 0);
    CHECK(Json::parse(api.Call("GET", "/schedules").body)["page"]["totalElements"] == 0);
}

TEST_CASE("a callback host resolving to loopback is never called unless allow-listed", "[e2e][security][egress]") {
    auto routes = CallbackRoutes();
    orch::test::FixtureHttpServer receiver(routes);
    {
        ApiHarness api("egress-deliver", "");
        const std::string id = CreateWithCallback(api, "http://localhost:" + std::to_string(receiver.port()) + "/cb");
        api.WaitFor(id, "CREATE_FAILED");
        // The callback step ran and was refused (not merely not run yet).
        CHECK(Eventually([&] { return api.Log().find("callback refused") != std::string::npos; }));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        CHECK(routes->Requests().empty());
    }
    ApiHarness allowed("egress-allowed");  // egress.allowed: [127.0.0.1]
    const std::string id = CreateWithCallback(allowed, "http://localhost:" + std::to_string(receiver.port()) + "/cb");
    allowed.WaitFor(id, "CREATE_FAILED");
    REQUIRE(Eventually([&] { return !routes->Requests().empty(); }));
    CHECK(Json::parse(routes->Requests().front().body)["uuid"] == id);
}

TEST_CASE("a redirect from an allowed callback server is not followed", "[e2e][security][egress]") {
    auto routes = CallbackRoutes();
    orch::test::FixtureHttpServer target(routes);
    orch::test::CannedHttpServer redirector(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + target.url() +
        "/target\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    ApiHarness api("egress-redirect");  // egress.allowed: [127.0.0.1]
    const std::string id = CreateWithCallback(api, "http://127.0.0.1:" + std::to_string(redirector.port()) + "/cb");
    api.WaitFor(id, "CREATE_FAILED");
    REQUIRE(Eventually([&] { return redirector.hits() > 0; }));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    CHECK(routes->Requests().empty());
}
