// Backtracking patterns on user text (issue 16, class 2): schedules whose fileExpression makes a
// backtracking matcher (std::regex) run for hours on an ordinary file name must not stall the
// API. The real binary trusting the `oidc` fixture's issuer, real PostgreSQL; an admin's hostile
// notifications run while a user's plain list is timed.
#include "../../integration/auth/oidc_provider.hpp"
#include "../auth/authed_orchestrator.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace {

using orch::Json;
using Clock = std::chrono::steady_clock;

// A client of its own per thread, with a bounded wait: the old code never answered these.
orch::http::ClientResponse Send(
    const std::string& base,
    const std::string& token,
    const std::string& method,
    const std::string& path,
    const std::string& body,
    std::chrono::milliseconds timeout
) {
    auto client = orch::http::MakeClient({});
    REQUIRE(client);
    orch::http::ClientRequest req;
    req.method = method;
    req.url = base + path;
    req.body = body;
    req.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer " + token}};
    req.timeout = timeout;
    auto res = (*client)->Send(req);
    if (!res) {
        return orch::http::ClientResponse{.status = 0, .headers = {}, .body = res.error().message};
    }
    return *res;
}

struct Setup {
    orch::test::OidcProvider& alpha = orch::test::OidcProvider::Shared("alpha");
    orch::test::AuthedOrchestrator api{{{{"alpha", alpha.issuer()}}}};
    std::string admin = alpha.UserToken("alice").access_token;  // alpha's admin may notify
    std::string user = alpha.UserToken("bob").access_token;

    orch::http::ClientResponse CreateSchedule(const std::string& expression) {
        return api.Call(
            "POST",
            "/schedules",
            admin,
            Json{
                {"template", orch::test::MarathonTemplate()},
                {"fileExpression", expression},
                {"replicationExpression", "CNAF_DISK"},
                {"numberOfReplicas", 1}}
                .dump()
        );
    }
};

}  // namespace

TEST_CASE("hostile fileExpressions do not stall the API while notifications run", "[e2e][security][schedules]") {
    Setup t;
    // Each of these takes a backtracking engine exponential time in the name's length when the
    // name does not match (no '!'): (.+)+! on a 40-byte name is ~2^40 steps.
    const std::vector<std::string> hostile = {"(.+)+!", "(.*)*!", "(a|.)+(b|.)+!", "((.+)+)+!"};
    for (const auto& expression : hostile) {
        const auto created = t.CreateSchedule(expression);
        INFO(created.body);
        REQUIRE(created.status == 201);
    }
    const std::string file = Json{{"scope", "user.alice"}, {"name", std::string(40, 'a')}}.dump();
    const std::string base = t.api.BaseUrl();
    // More notifications than the default worker pool (8) has threads.
    std::vector<std::future<orch::http::ClientResponse>> notifications;
    for (int i = 0; i < 12; ++i) {
        notifications.push_back(std::async(std::launch::async, [&] {
            return Send(base, t.admin, "POST", "/schedules/notifications", file, std::chrono::seconds(10));
        }));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let them reach the workers
    for (int i = 0; i < 5; ++i) {
        const auto start = Clock::now();
        const auto listed = Send(base, t.user, "GET", "/deployments", "", std::chrono::seconds(3));
        const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
        INFO("GET /deployments answered " << listed.status << " after " << took.count() << " ms: " << listed.body);
        CHECK(listed.status == 200);
        CHECK(took < std::chrono::seconds(1));
    }
    for (auto& pending : notifications) {
        const auto res = pending.get();
        INFO(res.status << " " << res.body);
        // Done (nothing matched), or refused while another notification runs; never left hanging.
        CHECK((res.status == 200 || res.status == 503));
        if (res.status == 200) {
            CHECK(Json::parse(res.body)["events"].empty());
        }
    }
    // A name that does match still fires: the expressions are matched, not refused.
    const auto matching = Send(
        base,
        t.admin,
        "POST",
        "/schedules/notifications",
        Json{{"scope", "user.alice"}, {"name", std::string(40, 'a') + "!"}}.dump(),
        std::chrono::seconds(10)
    );
    INFO(matching.body);
    REQUIRE(matching.status == 200);
    CHECK(Json::parse(matching.body)["events"].size() == hostile.size());
}

TEST_CASE("fileExpressions outside the linear matcher's bounds are 400, not stored", "[e2e][security][schedules]") {
    Setup t;
    // Back-references force backtracking; a program this large would cost every notification.
    for (const std::string& bad : std::vector<std::string>{"(a)\\1", "(.{100}){100}", std::string(2000, 'a')}) {
        const auto res = t.CreateSchedule(bad);
        INFO(bad.substr(0, 40) << ": " << res.body);
        CHECK(res.status == 400);
    }
    const auto listed = Json::parse(t.api.Call("GET", "/schedules", t.admin).body);
    CHECK(listed["page"]["totalElements"] == 0);
}
