// Durable callbacks with the real binary: the notification of a state change is queued in the
// same transaction as the change (the callback outbox) and delivered at least once, through
// receiver failures and through a kill -9 of the orchestrator in the middle of the delivery.
#include "reliability_harness.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <signal.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

namespace {

using orch::Json;
using orch::reliability::Reply;
using orch::reliability::Send;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The reliability sites' configuration, with the receiver (on loopback) allowed by the egress
// policy and short callback tries (so the lease of a killed try runs out in 2 × 1 s + 5 s).
std::string CallbackConfig(const orch::reliability::TwoSites& sites) {
    const std::string path = sites.WriteConfig("2s");
    std::string yaml = orch::test::ReadFile(path);
    const auto workflow = yaml.find("workflow:\n");
    REQUIRE(workflow != std::string::npos);
    yaml.insert(workflow + 10, "  callback_timeout: 1s\n");
    std::ofstream(path, std::ios::trunc) << yaml << "egress:\n  allowed: [127.0.0.1]\n";
    return path;
}

std::string CreateWithCallback(const std::string& base_url, const std::string& callback) {
    Json body = Json::parse(orch::reliability::SmallCreateBody());
    body["callback"] = callback;
    const Reply created = Send("POST", base_url + "/deployments", body.dump());
    REQUIRE(created.status == 201);
    return created.body.at("uuid").get<std::string>();
}

// Waits until the receiver has seen `n` requests; returns them.
std::vector<orch::test::FixtureRequest> WaitForRequests(
    orch::test::FixtureRoutes& routes, std::size_t n, milliseconds timeout
) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (routes.Requests().size() < n && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(milliseconds(50));
    }
    return routes.Requests();
}

}  // namespace

TEST_CASE("a callback whose receiver fails twice is delivered on the third try", "[e2e][reliability][callback]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    auto receiver = std::make_shared<orch::test::FixtureRoutes>();
    std::mutex mutex;
    int calls = 0;
    receiver->Route("POST", "/hook", [&](const orch::test::FixtureRequest&) {
        const std::lock_guard lock(mutex);
        return orch::test::FixtureResponse{++calls <= 2 ? 503 : 200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer server(receiver);
    orch::test::OrchestratorProcess orch(db.dsn(), {}, CallbackConfig(sites));

    const std::string id = CreateWithCallback(orch.BaseUrl(), server.url() + "/hook");
    // Tries 1 s and 2 s apart after the two failures.
    const auto seen = WaitForRequests(*receiver, 3, seconds(60));
    REQUIRE(seen.size() >= 3);
    for (const auto& r : seen) {
        const Json body = Json::parse(r.body);
        CHECK(r.path == "/hook");
        CHECK(body.at("uuid") == id);
        CHECK(body.at("status") == "CREATE_COMPLETE");
    }
    // Delivered: no further try.
    std::this_thread::sleep_for(seconds(3));
    CHECK(receiver->Requests().size() == 3);
}

TEST_CASE(
    "a callback survives kill -9 of the orchestrator in the middle of its delivery", "[e2e][reliability][callback]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = CallbackConfig(sites);
    auto receiver = std::make_shared<orch::test::FixtureRoutes>();
    // The first POST is held until the orchestrator that sent it is dead: the state change is
    // committed, its delivery claimed and under way, and nothing was acknowledged.
    std::mutex mutex;
    std::condition_variable changed;
    bool arrived = false;
    bool released = false;
    receiver->Route("POST", "/hook", [&](const orch::test::FixtureRequest&) {
        std::unique_lock lock(mutex);
        if (!arrived) {
            arrived = true;
            changed.notify_all();
            changed.wait_for(lock, seconds(60), [&] { return released; });
        }
        return orch::test::FixtureResponse{200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer server(receiver);
    auto orch =
        std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);

    const std::string id = CreateWithCallback(orch->BaseUrl(), server.url() + "/hook");
    {
        std::unique_lock lock(mutex);
        REQUIRE(changed.wait_for(lock, seconds(60), [&] { return arrived; }));
    }
    REQUIRE(orch->process().Stop(SIGKILL, seconds(10)) == 128 + SIGKILL);
    {
        const std::lock_guard lock(mutex);
        released = true;
    }
    changed.notify_all();

    orch = std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
    // The killed try's lease (2 × 1 s + 5 s) runs out, and the new process delivers it again.
    const auto seen = WaitForRequests(*receiver, 2, seconds(60));
    REQUIRE(seen.size() == 2);
    CHECK(Json::parse(seen[1].body).at("uuid") == id);
    CHECK(Json::parse(seen[1].body).at("status") == "CREATE_COMPLETE");
    std::this_thread::sleep_for(seconds(2));
    CHECK(receiver->Requests().size() == 2);
}
