// The deploy and poll steps, driven one due job at a time (Engine::RunOneDue) over the in-memory
// stores, a fake connector and a ManualClock: what is due, when a provider or the deployment
// times out and when a transient failure is retried are decided by the clock; nothing sleeps.
#include "test_support/handler_harness.hpp"

#include <common/http_client.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>
#include <orchestrator/workflow/engine.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::connectors::FailureKind;
using orch::domain::AttemptOutcome;
using orch::domain::Status;
using std::chrono::minutes;
using std::chrono::seconds;

orch::workflow::StepOptions Options() {
    orch::workflow::StepOptions o;
    o.first_poll = seconds(1);
    o.max_poll = seconds(30);
    o.max_transient_retries = 2;
    o.crash_loop_timeout = minutes(2);
    return o;
}

// The API creates deployments (the handler harness); the engine runs their steps on this thread.
struct Rig {
    orch::test::HandlerHarness api;
    orch::test::FakePlacer placer{{"SITE-A", "SITE-B"}};
    orch::test::FakeConnector connector;
    orch::test::FakeRegistry registry{connector};
    orch::test::FakeCredentials credentials;
    std::unique_ptr<orch::http::Client> http = std::move(*orch::http::MakeClient({}));
    orch::workflow::StepServices services{
        api.stores.workflow,
        api.templates,
        placer,
        registry,
        credentials,
        *http,
        api.clock,
        nullptr,
        nullptr,
        Options()};
    orch::workflow::Engine engine{api.stores.workflow, {.owner = "unit-test"}};

    Rig() {
        services.resolve_outputs = [](const auto&, const auto&) {
            return Json::object();
        };
        orch::workflow::RegisterDeploymentSteps(engine, services);
    }

    /// Runs every job due now (bounded: a step that requeues itself at once is a failure).
    int RunDue() {
        int ran = 0;
        while (engine.RunOneDue().value()) {
            REQUIRE(++ran < 100);
        }
        return ran;
    }

    std::string Create(Json body) {
        body["template"] = "tosca_definitions_version: x";
        body["userGroup"] = "users";  // the harness' callers are members of "users"
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body).value("uuid", "");
    }

    orch::domain::Deployment Get(const std::string& id) { return api.stores.deployments.Get(id).value().value(); }
    std::vector<orch::domain::Attempt> Attempts(const std::string& id) {
        return api.stores.deployments.ListAttempts(id).value();
    }
};

}  // namespace

TEST_CASE("a deployment is placed, created, and polled to CREATE_COMPLETE when the clock says so", "[workflow]") {
    Rig rig;
    const std::string id = rig.Create(Json::object());
    CHECK(rig.RunDue() >= 2);  // place, then create on SITE-A
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 1);
    CHECK(rig.Get(id).status == Status::kCreateInProgress);
    CHECK(rig.RunDue() == 0);  // the first poll waits first_poll on the clock

    rig.api.clock.Advance(seconds(1));
    CHECK(rig.RunDue() >= 1);
    const auto d = rig.Get(id);
    CHECK(d.status == Status::kCreateComplete);
    CHECK(d.cloud_provider_name == "SITE-A");
    const auto attempts = rig.Attempts(id);
    REQUIRE(attempts.size() == 1);
    CHECK(attempts[0].outcome == AttemptOutcome::kSucceeded);
    // The API shows what the steps wrote.
    CHECK(Json::parse(rig.api.Call("GET", "/deployments/" + id).body).value("status", "") == "CREATE_COMPLETE");
}

TEST_CASE("a site that never gets ready is left after providerTimeoutMins of clock time", "[workflow][timeout]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.polls_until_ready = 1'000'000});
    const std::string id = rig.Create(Json{{"timeoutMins", 10}, {"providerTimeoutMins", 1}});
    rig.RunDue();
    for (int i = 0; i < 5; ++i) {  // 50 s: polls, still on SITE-A
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);
    CHECK(rig.Attempts(id).size() == 1);

    // Polls back off (1, 2, 4 ... 30 s): the first poll past the minute moves on.
    for (int i = 0; i < 6 && rig.connector.CreateCalls("SITE-B", id) == 0; ++i) {
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    const auto attempts = rig.Attempts(id);
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].outcome == AttemptOutcome::kFailed);
    CHECK(attempts[0].reason == "Provider timeout during deployment (1 minutes)");
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);

    rig.api.clock.Advance(seconds(1));
    rig.RunDue();
    CHECK(rig.Get(id).status == Status::kCreateComplete);
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
}

TEST_CASE("the deployment fails with the timeout reason once the clock passes timeoutMins", "[workflow][timeout]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.polls_until_ready = 1'000'000});
    rig.connector.SetBehaviour("SITE-B", {.polls_until_ready = 1'000'000});
    const std::string id = rig.Create(Json{{"timeoutMins", 2}});
    rig.RunDue();
    for (int i = 0; i < 11; ++i) {  // 110 s
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    CHECK(rig.Get(id).status == Status::kCreateInProgress);
    for (int i = 0; i < 5 && rig.Get(id).status == Status::kCreateInProgress; ++i) {
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    const auto d = rig.Get(id);
    CHECK(d.status == Status::kCreateFailed);
    CHECK(d.status_reason == "Timeout: Maximum execution time exceeded.");
}

TEST_CASE(
    "a transient create failure is retried after a backoff on the clock, then the next site", "[workflow][retry]"
) {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kRetryHere});
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 1);
    CHECK(rig.RunDue() == 0);  // the retry waits its backoff: nothing is due yet

    rig.api.clock.Advance(seconds(1));  // Backoff(1)
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 2);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);

    rig.api.clock.Advance(seconds(2));  // Backoff(2): the last retry here, then SITE-B
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", id) == 3);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
    const auto attempts = rig.Attempts(id);
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].outcome == AttemptOutcome::kFailed);
}

TEST_CASE(
    "an application that cannot start fails its attempt after crash_loop_timeout, with the site's reason",
    "[workflow][crash_loop]"
) {
    Rig rig;
    rig.connector.SetBehaviour(
        "SITE-A",
        {.polls_until_ready = 1'000'000,
         .cannot_start = "app /x: tasks keep failing: CUDA error: no CUDA-capable device"}
    );
    const std::string id = rig.Create(Json{{"timeoutMins", 600}});  // provider timeout: the 10-day default
    rig.RunDue();
    // Polls back off to 30 s; well within the 2 minutes it stays on SITE-A.
    for (int i = 0; i < 10; ++i) {
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    CHECK(rig.Attempts(id).size() == 1);
    // Past 2 minutes (plus at most one poll interval) the attempt fails with the site's message.
    for (int i = 0; i < 6 && rig.Attempts(id).size() == 1; ++i) {
        rig.api.clock.Advance(seconds(10));
        rig.RunDue();
    }
    const auto attempts = rig.Attempts(id);
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].outcome == AttemptOutcome::kFailed);
    CHECK(
        attempts[0].reason ==
        "The application cannot start: app /x: tasks keep failing: CUDA error: no CUDA-capable device"
    );
    CHECK(attempts[0].finished_at.value() - attempts[0].started_at <= minutes(2) + seconds(40));
    rig.api.clock.Advance(seconds(1));
    rig.RunDue();
    CHECK(rig.Get(id).status == Status::kCreateComplete);  // SITE-B starts it
}
