// The callback outbox's sender (CallbackDeliverer), driven one delivery at a time over the
// in-memory stores, a fixture receiver and a ManualClock: when a failed POST is tried again, and
// when a delivery is given up, are decided by the clock; nothing sleeps.
#include "test_support/fixture_http_server.hpp"
#include "test_support/handler_harness.hpp"

#include <orchestrator/workflow/callback_deliverer.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// A client the egress policy refuses every request of (a host resolving to an internal address).
class RefusingClient final : public orch::http::Client {
   public:
    orch::Result<orch::http::ClientResponse> Send(const orch::http::ClientRequest& request) override {
        ++calls;
        (void)request;
        return orch::Error::PermissionDenied("host resolves to a loopback address");
    }
    int calls = 0;
};

// What the deliverer reported, in order.
struct RecordingObserver final : orch::workflow::CallbackObserver {
    void CallbackTried(orch::workflow::CallbackOutcome outcome, milliseconds age) override {
        tries.emplace_back(std::string(orch::workflow::CallbackOutcomeName(outcome)), age);
    }
    std::vector<std::pair<std::string, milliseconds>> tries;
};

struct Rig {
    explicit Rig(orch::http::Client* client = nullptr) : http_(client != nullptr ? client : &fixture) {
        options.callback_max_age = hours(24);
    }

    orch::test::HandlerHarness api;
    std::shared_ptr<orch::test::FixtureRoutes> receiver = std::make_shared<orch::test::FixtureRoutes>();
    orch::test::FixtureClient fixture{receiver};
    orch::http::Client* http_;
    orch::test::FakePlacer placer{{"SITE-A"}};
    orch::test::FakeConnector connector;
    orch::test::FakeRegistry registry{connector};
    orch::test::FakeCredentials credentials;
    orch::workflow::StepOptions options;
    RecordingObserver observed;
    std::unique_ptr<orch::workflow::StepServices> services;
    std::unique_ptr<orch::workflow::CallbackDeliverer> deliverer;

    void Build() {
        services = std::make_unique<orch::workflow::StepServices>(orch::workflow::StepServices{
            api.stores.workflow,
            api.templates,
            placer,
            registry,
            credentials,
            *http_,
            api.clock,
            [](const orch::domain::Deployment& d) {
                return Json{{"uuid", d.id}, {"status", std::string(orch::domain::StatusName(d.status))}};
            },
            nullptr,
            options});
        deliverer = std::make_unique<orch::workflow::CallbackDeliverer>(
            *services, orch::workflow::CallbackDelivererOptions{.owner = "unit-test", .observer = &observed}
        );
    }

    // A deployment with a callback whose first step committed CREATE_COMPLETE (and so queued
    // its delivery), as the workflow does.
    std::string CompletedWithCallback() {
        Json body{
            {"template", "tosca_definitions_version: x"},
            {"userGroup", "users"},
            {"callback", "https://hooks.example.org/cb"}};
        const auto res = api.Call("POST", "/deployments", body.dump());
        REQUIRE(res.status == 201);
        const std::string id = Json::parse(res.body).value("uuid", "");
        auto jobs = api.stores.workflow.Claim("w", 10, seconds(30)).value();
        REQUIRE(jobs.size() == 1);
        orch::workflow::Transition t;
        t.status = orch::domain::Status::kCreateComplete;
        t.callback = true;
        REQUIRE(api.stores.workflow.Commit(jobs[0], "w", t));
        return id;
    }

    bool DeliverOne() { return deliverer->DeliverOneDue().value(); }
};

}  // namespace

TEST_CASE(
    "a callback refused twice by its receiver is tried again after 1 s and 2 s, then delivered", "[workflow][callback]"
) {
    Rig rig;
    rig.Build();
    int calls = 0;
    rig.receiver->Route("POST", "/cb", [&](const orch::test::FixtureRequest&) {
        return orch::test::FixtureResponse{++calls <= 2 ? 503 : 204, "application/json", ""};
    });
    const std::string id = rig.CompletedWithCallback();

    CHECK(rig.DeliverOne());
    CHECK_FALSE(rig.DeliverOne());  // waiting out the first backoff
    rig.api.clock.Advance(milliseconds(999));
    CHECK_FALSE(rig.DeliverOne());
    rig.api.clock.Advance(milliseconds(1));
    CHECK(rig.DeliverOne());
    rig.api.clock.Advance(milliseconds(1'999));
    CHECK_FALSE(rig.DeliverOne());
    rig.api.clock.Advance(milliseconds(1));
    CHECK(rig.DeliverOne());
    CHECK(calls == 3);
    // Delivered: gone from the outbox.
    rig.api.clock.Advance(hours(1));
    CHECK_FALSE(rig.DeliverOne());
    CHECK(calls == 3);
    const auto seen = rig.receiver->Requests();
    REQUIRE(seen.size() == 3);
    CHECK(Json::parse(seen[2].body) == Json{{"uuid", id}, {"status", "CREATE_COMPLETE"}});
    CHECK(seen[2].Header("Content-Type") == "application/json");
    // Each try is reported with its outcome and how long after the state change it was made.
    using Try = std::pair<std::string, milliseconds>;
    CHECK(
        rig.observed.tries ==
        std::vector<Try>{
            {"failed", milliseconds(0)}, {"failed", milliseconds(1'000)}, {"delivered", milliseconds(3'000)}}
    );
}

TEST_CASE("a callback is given up once older than callback_max_age", "[workflow][callback]") {
    Rig rig;
    rig.options.callback_max_age = seconds(10);
    rig.Build();
    rig.receiver->Fail("/cb", 500);
    rig.CompletedWithCallback();
    // Tries at 0, 1, 3 and 7 s; the next would be at 15 s, past the 10 s age: abandoned.
    for (int i = 0; i < 100 && rig.receiver->Requests().size() < 10; ++i) {
        (void)rig.DeliverOne();
        rig.api.clock.Advance(milliseconds(500));
    }
    CHECK(rig.receiver->Requests().size() == 4);
}

TEST_CASE("a callback is given up after callback_retries tries", "[workflow][callback]") {
    Rig rig;
    rig.options.callback_retries = 3;
    rig.Build();
    rig.receiver->Fail("/cb", 500);
    rig.CompletedWithCallback();
    for (int i = 0; i < 100; ++i) {
        (void)rig.DeliverOne();
        rig.api.clock.Advance(seconds(10));
    }
    CHECK(rig.receiver->Requests().size() == 3);
    std::vector<std::string> outcomes;
    for (const auto& [outcome, age] : rig.observed.tries) {
        outcomes.push_back(outcome);
    }
    CHECK(outcomes == std::vector<std::string>{"failed", "failed", "abandoned"});
}

TEST_CASE("a callback the egress policy refuses is dropped at once, not retried", "[workflow][callback][security]") {
    RefusingClient refusing;
    Rig rig(&refusing);
    rig.Build();
    rig.CompletedWithCallback();
    CHECK(rig.DeliverOne());
    rig.api.clock.Advance(hours(1));
    CHECK_FALSE(rig.DeliverOne());
    CHECK(refusing.calls == 1);
    REQUIRE(rig.observed.tries.size() == 1);
    CHECK(rig.observed.tries[0].first == "refused");
}
