// Durable callbacks with the real binary: the notification of a state change is queued in the
// same transaction as the change (the callback outbox) and delivered at least once, through
// receiver failures and through a kill -9 of the orchestrator in the middle of the delivery.
#include "reliability_harness.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <functional>
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
    REQUIRE(orch::test::WaitForStatus(base_url + "/readyz", 200, seconds(20)));  // migrations applied
    Json body = Json::parse(orch::reliability::SmallCreateBody());
    body["callback"] = callback;
    const Reply created = Send("POST", base_url + "/deployments", body.dump());
    REQUIRE(created.status == 201);
    return created.body.at("uuid").get<std::string>();
}

std::string StatusIn(const std::string& body) {
    return Json::parse(body).value("status", "");
}

// What a receiver was sent, in the order it answered: the deployment status in each body.
class Received {
   public:
    void Add(const std::string& body) {
        const std::lock_guard lock(mutex_);
        statuses_.push_back(StatusIn(body));
        changed_.notify_all();
    }
    /// Waits until `done` holds for the statuses so far (or `timeout`); returns them.
    std::vector<std::string> WaitUntil(
        const std::function<bool(const std::vector<std::string>&)>& done, milliseconds timeout
    ) {
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, timeout, [&] { return done(statuses_); });
        return statuses_;
    }
    std::vector<std::string> Now() {
        const std::lock_guard lock(mutex_);
        return statuses_;
    }

   private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> statuses_;
};

}  // namespace

TEST_CASE("a callback whose receiver fails twice is delivered on the third try", "[e2e][reliability][callback]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    auto receiver = std::make_shared<orch::test::FixtureRoutes>();
    Received delivered;
    std::atomic<int> calls{0};
    receiver->Route("POST", "/hook", [&](const orch::test::FixtureRequest& r) {
        if (++calls <= 2) {
            return orch::test::FixtureResponse{503, "application/json", "{}"};
        }
        delivered.Add(r.body);
        return orch::test::FixtureResponse{200, "application/json", "{}"};
    });
    orch::test::FixtureHttpServer server(receiver);
    orch::test::OrchestratorProcess orch(db.dsn(), {}, CallbackConfig(sites));

    const std::string id = CreateWithCallback(orch.BaseUrl(), server.url() + "/hook");
    // Two notifications (submitted to the site, then CREATE_COMPLETE), each its own delivery:
    // the receiver refuses the first two POSTs, whichever they carry; both arrive in the end
    // (each body is the deployment as it is when sent).
    const auto got = delivered.WaitUntil([](const auto& s) { return s.size() >= 2; }, seconds(60));
    REQUIRE(got.size() >= 2);
    CHECK(got.back() == "CREATE_COMPLETE");
    for (const auto& r : receiver->Requests()) {
        CHECK(r.path == "/hook");
        CHECK(Json::parse(r.body).at("uuid") == id);
    }
    // Each delivered once: no further try.
    std::this_thread::sleep_for(seconds(3));
    CHECK(delivered.Now().size() == 2);
    CHECK(calls == 4);
}

TEST_CASE(
    "a callback survives kill -9 of the orchestrator in the middle of its delivery", "[e2e][reliability][callback]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = CallbackConfig(sites);
    auto receiver = std::make_shared<orch::test::FixtureRoutes>();
    // The first POST is held until the orchestrator that sent it is dead: the state change is
    // committed, its delivery claimed and under way, and nothing was acknowledged. The other
    // notification cannot get through meanwhile (the receiver answers one request at a time).
    std::mutex mutex;
    std::condition_variable changed;
    bool arrived = false;
    bool released = false;
    bool restarted = false;
    Received after_restart;
    receiver->Route("POST", "/hook", [&](const orch::test::FixtureRequest& r) {
        std::unique_lock lock(mutex);
        if (!arrived) {
            arrived = true;
            changed.notify_all();
            changed.wait_for(lock, seconds(60), [&] { return released; });
        } else if (restarted) {
            after_restart.Add(r.body);
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
    // What the dead process had written into its sockets is answered now, into the void.
    std::this_thread::sleep_for(milliseconds(500));
    {
        const std::lock_guard lock(mutex);
        restarted = true;
    }

    orch = std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
    REQUIRE(orch::test::WaitForStatus(orch->BaseUrl() + "/readyz", 200, seconds(20)));
    // Neither notification was acknowledged before the kill: the new process sends both, the
    // held one once its try's lease (2 × 1 s + 5 s) has run out.
    const auto got = after_restart.WaitUntil([](const auto& s) { return s.size() >= 2; }, seconds(60));
    REQUIRE(got.size() >= 2);
    CHECK(got.back() == "CREATE_COMPLETE");
    for (const auto& r : receiver->Requests()) {
        CHECK(Json::parse(r.body).at("uuid") == id);
    }
    std::this_thread::sleep_for(seconds(2));
    CHECK(after_restart.Now().size() == 2);
}
