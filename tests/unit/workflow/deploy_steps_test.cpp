// The deploy and poll steps, driven one due job at a time (Engine::RunOneDue) over the in-memory
// stores, a fake connector and a ManualClock: what is due, when a provider or the deployment
// times out and when a transient failure is retried are decided by the clock; nothing sleeps.
#include "test_support/handler_harness.hpp"

#include <common/http_client.hpp>
#include <orchestrator/auth/principal.hpp>
#include <orchestrator/domain/attempt.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>
#include <orchestrator/workflow/engine.hpp>
#include <orchestrator/workflow/site_version_cache.hpp>

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

using orch::Json;
using orch::connectors::FailureKind;
using orch::domain::AttemptOutcome;
using orch::domain::Status;
using std::chrono::hours;
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
            return orch::tosca::OutputValues{};
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

    std::string Create(Json body, const std::string& group = "users") {
        body["template"] = "tosca_definitions_version: x";
        body["userGroup"] = group;  // the harness' callers are members of "users"
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body).value("uuid", "");
    }

    orch::domain::Deployment Get(const std::string& id) { return api.stores.deployments.Get(id).value().value(); }
    std::vector<orch::domain::Attempt> Attempts(const std::string& id) {
        return api.stores.deployments.ListAttempts(id).value();
    }
    /// The deployment's events in the durable log, in order.
    std::vector<orch::domain::Event> Events(const std::string& id) {
        orch::auth::Principal local;
        local.local = true;
        return api.stores.events
            .After({.owner = orch::auth::OwnerFilter::VisibleTo(local), .deployment_id = id, .limit = 1000})
            .value();
    }
    std::vector<std::string> EventTypes(const std::string& id) {
        std::vector<std::string> out;
        for (const auto& e : Events(id)) {
            out.emplace_back(orch::domain::EventTypeName(e.type));
        }
        return out;
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

// Issue 25: a failure caused by the request (the connector's typed kUserError: a template the
// target cannot run, a user error the site reports) is recorded as the request's, so site health
// (PgSiteHistory, which ranking and circuit breakers read) does not count it against the site.
TEST_CASE("a user error is recorded as the request's fault, a site failure as the site's", "[workflow][health]") {
    using orch::domain::FailureCause;
    const auto causes = [](Rig& rig, const std::string& id) {
        const auto st = rig.api.stores.workflow.Load(id).value();
        REQUIRE(st);
        std::vector<FailureCause> out;
        for (const auto& a : st->attempts) {
            out.push_back(a.cause);
        }
        return out;
    };
    SECTION("refused at create") {
        Rig rig;
        rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kUserError});
        const std::string id = rig.Create(Json::object());
        rig.RunDue();
        CHECK(rig.Get(id).status == Status::kCreateFailed);
        CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);
        CHECK(causes(rig, id) == std::vector<FailureCause>{FailureCause::kRequest});
    }
    SECTION("reported by the site while polling") {
        Rig rig;
        rig.connector.SetBehaviour("SITE-A", {.poll_fails = FailureKind::kUserError});
        const std::string id = rig.Create(Json::object());
        rig.RunDue();
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
        CHECK(rig.Get(id).status == Status::kCreateFailed);
        CHECK(causes(rig, id) == std::vector<FailureCause>{FailureCause::kRequest});
    }
    SECTION("the site's own failure") {
        Rig rig;
        rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
        const std::string id = rig.Create(Json::object());
        rig.RunDue();
        CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
        const auto c = causes(rig, id);
        REQUIRE(c.size() == 2);
        CHECK(c[0] == FailureCause::kSite);
        CHECK(rig.Attempts(id)[0].outcome == AttemptOutcome::kFailed);
    }
}

TEST_CASE("each step moves statusReason and writes its events, stamped by the clock", "[workflow][events]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.polls_until_ready = 3, .waiting_message = "waiting for 1 GPU offer"});
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.Get(id).status_reason == "Deploying on SITE-A (attempt 1 of 2)");
    rig.api.clock.Advance(seconds(1));
    rig.RunDue();
    CHECK(rig.Get(id).status_reason == "SITE-A: waiting for 1 GPU offer");
    rig.api.clock.Advance(seconds(2));
    rig.RunDue();  // the same message again: no second event
    rig.api.clock.Advance(seconds(4));
    rig.RunDue();
    REQUIRE(rig.Get(id).status == Status::kCreateComplete);
    CHECK(rig.Get(id).status_reason == "");  // as the original: none once complete
    CHECK(
        rig.EventTypes(id) ==
        std::vector<std::string>{
            "progress", "placement", "attempt_started", "progress", "site_message", "attempt_ended", "completed"}
    );
    const auto events = rig.Events(id);
    CHECK(events[1].data["sites"].size() == 2);
    CHECK(events[2].data == Json{{"seq", 1}, {"of", 2}, {"site", "SITE-A"}});
    CHECK(events[4].data["message"] == "waiting for 1 GPU offer");
    CHECK(events[5].data["outcome"] == "SUCCEEDED");
    CHECK(events[6].data["status"] == "CREATE_COMPLETE");
    CHECK(events[6].time == rig.api.clock.now());
    CHECK(events[0].time < events[6].time);
}

namespace {

std::size_t Count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
        ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("the log has a timestamped line for each progress step, not empty on success", "[workflow][events]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.polls_until_ready = 3, .waiting_message = "waiting for 1 GPU offer"});
    const std::string id = rig.Create(Json::object());
    for (int i = 0; i < 10 && rig.Get(id).status != Status::kCreateComplete; ++i) {
        rig.RunDue();
        rig.api.clock.Advance(seconds(4));
    }
    REQUIRE(rig.Get(id).status == Status::kCreateComplete);
    const std::string log = rig.api.stores.deployments.GetLog(id).value();
    INFO(log);
    const std::vector<std::string> steps{
        "Validated; placing",
        "Placed: SITE-A, SITE-B",
        "Deploying on SITE-A (attempt 1 of 2)",
        "SITE-A: waiting for 1 GPU offer",
        "Attempt 1 on SITE-A SUCCEEDED",
        "CREATE_COMPLETE"};
    std::size_t at = 0;
    for (const auto& step : steps) {  // in this order, each once, each on a line of its own
        const auto found = log.find("Z " + step + "\n", at);
        CHECK(found != std::string::npos);
        CHECK(Count(log, step) == 1);
        at = found == std::string::npos ? at : found;
    }
    // Each line starts with the time of its step (the ManualClock's), as the events do.
    CHECK(log.rfind(orch::domain::FormatUtcMillis(rig.Events(id).front().time) + " Validated; placing\n", 0) == 0);
}

TEST_CASE("the site's own log is appended to the deployment's, only what it added each poll", "[workflow][events]") {
    Rig rig;
    rig.connector.SetBehaviour(
        "SITE-A",
        {.polls_until_ready = 5,
         // Sent whole on every poll; the fourth cut its start, as a bounded contmsg does.
         .site_logs =
             {"task one ok\n",
              "task one ok\ntask two ok\n",
              "task one ok\ntask two ok\n",
              "two ok\ntask three ok\n",
              "two ok\ntask three ok\nall done\n"}}
    );
    const std::string id = rig.Create(Json::object());
    for (int i = 0; i < 10 && rig.Get(id).status != Status::kCreateComplete; ++i) {
        rig.RunDue();
        rig.api.clock.Advance(seconds(8));
    }
    REQUIRE(rig.Get(id).status == Status::kCreateComplete);
    const std::string log = rig.api.stores.deployments.GetLog(id).value();
    INFO(log);
    CHECK(Count(log, "task one ok\n") == 1);
    CHECK(Count(log, "task two ok\n") == 1);
    CHECK(Count(log, "task three ok\n") == 1);
    CHECK(Count(log, "all done\n") == 1);
    CHECK(log.find("task one ok") < log.find("task two ok"));
    CHECK(log.find("task three ok") < log.find("all done"));
    CHECK(log.find("Deploying on SITE-A") < log.find("task one ok"));  // progress lines stay too
}

TEST_CASE("a waiting deployment says why once, in an event and a log line, not on every retry", "[workflow][events]") {
    Rig rig;
    rig.placer.SetFull(true);
    const std::string id = rig.Create(Json::object());
    for (int i = 0; i < 5; ++i) {
        rig.RunDue();
        rig.api.clock.Advance(seconds(5));  // workflow.admission_retry
    }
    CHECK(rig.Get(id).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    int waits = 0;
    for (const auto& e : rig.Events(id)) {
        if (e.type == orch::domain::EventType::kProgress && e.data.contains("waiting")) {
            ++waits;
            CHECK(e.data["waiting"] == "capacity");
            CHECK(e.data["statusReason"] == "queued: position 1 in group users, waiting for 1 × GPU");
        }
    }
    CHECK(waits == 1);
    const std::string log = rig.api.stores.deployments.GetLog(id).value();
    CHECK(Count(log, "queued: position 1 in group users, waiting for 1 × GPU (no site can take it now)\n") == 1);

    rig.placer.SetFull(false);
    rig.RunDue();
    CHECK(rig.Get(id).status_reason == "Deploying on SITE-A (attempt 1 of 2)");
}

TEST_CASE("the site's version is asked once per site and kept in the attempt_started event", "[workflow][events]") {
    Rig rig;
    orch::workflow::SiteVersionCache versions(rig.api.clock, minutes(60));
    rig.services.site_versions = &versions;
    const std::string first = rig.Create(Json::object());
    const std::string second = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.VersionCalls("SITE-A") == 1);  // cached for the second deployment
    for (const auto& id : {first, second}) {
        const auto events = rig.Events(id);
        const auto started = std::find_if(events.begin(), events.end(), [](const auto& e) {
            return e.type == orch::domain::EventType::kAttemptStarted;
        });
        REQUIRE(started != events.end());
        CHECK(started->data["siteVersion"] == "fake-marathon 1.0 (SITE-A)");
    }
    rig.api.clock.Advance(minutes(61));  // past the ttl: asked again
    rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.VersionCalls("SITE-A") == 2);
}

TEST_CASE("a first site that fails shows both attempts in order in the event log", "[workflow][events]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.Get(id).status_reason == "Deploying on SITE-B (attempt 2 of 2)");
    rig.api.clock.Advance(seconds(1));
    rig.RunDue();
    REQUIRE(rig.Get(id).status == Status::kCreateComplete);
    const auto events = rig.Events(id);
    std::vector<std::pair<std::string, Json>> attempts;
    for (const auto& e : events) {
        if (e.type == orch::domain::EventType::kAttemptStarted || e.type == orch::domain::EventType::kAttemptEnded) {
            attempts.emplace_back(orch::domain::EventTypeName(e.type), e.data);
        }
    }
    REQUIRE(attempts.size() == 4);
    CHECK(attempts[0].first == "attempt_started");
    CHECK(attempts[0].second["site"] == "SITE-A");
    CHECK(attempts[1].first == "attempt_ended");
    CHECK(attempts[1].second["outcome"] == "FAILED");
    CHECK(attempts[1].second["reason"] == "fake create failure on SITE-A");
    CHECK(attempts[2].second["site"] == "SITE-B");
    CHECK(attempts[3].second["outcome"] == "SUCCEEDED");
}

TEST_CASE("a deployment that fails everywhere ends with a failed event keeping the real cause", "[workflow][events]") {
    Rig rig;
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
    rig.connector.SetBehaviour("SITE-B", {.poll_fails = FailureKind::kTryAnotherSite});
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    rig.api.clock.Advance(seconds(1));
    rig.RunDue();
    const auto d = rig.Get(id);
    REQUIRE(d.status == Status::kCreateFailed);
    const auto events = rig.Events(id);
    REQUIRE_FALSE(events.empty());
    CHECK(events.back().type == orch::domain::EventType::kFailed);
    CHECK(events.back().data["status"] == "CREATE_FAILED");
    const std::string reason = events.back().data.value("reason", "");
    CHECK(reason == d.status_reason);
    CHECK(reason.find("fake create failure on SITE-A") != std::string::npos);
    CHECK(reason.find("fake failure reported by SITE-B") != std::string::npos);
}

TEST_CASE("a poll records the instance status the site reports, and an unknown one changes nothing", "[workflow]") {
    using orch::connectors::InstanceStatus;
    const auto resource_state = [](Rig& rig, const std::string& id) {
        const Json page = Json::parse(rig.api.Call("GET", "/deployments/" + id + "/resources").body);
        REQUIRE(page["content"].size() == 1);
        return page["content"][0].value("state", "");
    };
    for (const auto& [reported, recorded] : std::vector<std::pair<InstanceStatus, std::string>>{
             {InstanceStatus::kConfiguring, "CONFIGURING"}, {InstanceStatus::kUnknown, ""}}) {
        INFO(orch::connectors::InstanceStatusName(reported));
        Rig rig;
        rig.connector.SetBehaviour("SITE-A", {.polls_until_ready = 1'000'000, .in_progress_status = reported});
        const std::string id = rig.Create(Json::object());
        rig.RunDue();
        const std::string before = resource_state(rig, id);
        rig.api.clock.Advance(seconds(1));
        REQUIRE(rig.RunDue() >= 1);
        // Before the status was typed, a Slurm or Marathon word outside the connector's list was
        // written as STARTED or CREATING; now kUnknown leaves the row as it was.
        CHECK(resource_state(rig, id) == (recorded.empty() ? before : recorded));
    }
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

TEST_CASE(
    "a deployment over the group's free quota waits queued, the delete of the holder admits it", "[workflow][admission]"
) {
    Rig rig;
    orch::placement::GroupQuota quota;
    quota.group.instances = 1;
    rig.placer.SetQuota(quota);
    const std::string first = rig.Create(Json::object());
    const std::string second = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", first) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 0);
    CHECK(rig.Get(second).status == Status::kCreateInProgress);
    CHECK(rig.Get(second).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    rig.api.clock.Advance(seconds(5));  // workflow.admission_retry: still held by the first
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 0);

    REQUIRE(rig.api.Call("DELETE", "/deployments/" + first).status == 204);
    for (int i = 0; i < 10 && rig.connector.CreateCalls("SITE-A", second) == 0; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.Get(first).status == Status::kDeleteComplete);
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 1);
}

TEST_CASE(
    "a store-side quota wait says so once when it starts and once when it ends, not on every retry",
    "[workflow][admission][events]"
) {
    Rig rig;
    orch::placement::GroupQuota quota;
    quota.group.instances = 1;
    rig.placer.SetQuota(quota);
    const std::string first = rig.Create(Json::object());
    const std::string second = rig.Create(Json::object());
    rig.RunDue();  // the second's reservation does not fit: the store queues it
    for (int i = 0; i < 4; ++i) {
        rig.api.clock.Advance(seconds(5));  // workflow.admission_retry: still held by the first
        rig.RunDue();
    }
    const std::string reason = "queued: position 1 in group users, waiting for 1 × GPU";
    REQUIRE(rig.Get(second).status_reason == reason);
    const auto waits = [&](const std::string& kind) {
        int n = 0;
        for (const auto& e : rig.Events(second)) {
            if (e.type == orch::domain::EventType::kProgress && e.data.value("waiting", "") == kind) {
                ++n;
            }
        }
        return n;
    };
    CHECK(waits("capacity") == 1);
    CHECK(waits("over") == 0);
    CHECK(Count(rig.api.stores.deployments.GetLog(second).value(), reason + " (no site can take it now)\n") == 1);

    REQUIRE(rig.api.Call("DELETE", "/deployments/" + first).status == 204);
    for (int i = 0; i < 10 && rig.connector.CreateCalls("SITE-A", second) == 0; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    REQUIRE(rig.connector.CreateCalls("SITE-A", second) == 1);
    CHECK(waits("capacity") == 1);
    CHECK(waits("over") == 1);
    const std::string log = rig.api.stores.deployments.GetLog(second).value();
    INFO(log);
    CHECK(Count(log, "Admitted after waiting ") == 1);
    CHECK(log.find("(no site can take it now)") < log.find("Admitted after waiting "));
}

TEST_CASE(
    "a GPU class quota counts the GPUs of that class only, aliases included, and the queue names the class",
    "[workflow][admission][gpu_class]"
) {
    Rig rig;
    orch::placement::GroupQuota quota;
    quota.group.gpu_classes.push_back({{"V100", {"Tesla V100-PCIE-32GB"}, "", std::nullopt}, 2});
    rig.placer.SetQuota(quota);
    const auto body = [](const std::string& model, int count) {
        return Json{{"parameters", {{"gpu_model", model}, {"count", count}}}};
    };
    // 2 GPUs of the class by its alias's name, 2 of another class (not limited), then one by the
    // class's name: over the class limit. (Created in that order: the queue is strict, a GPU
    // request waiting first holds back later GPU requests whatever their class.)
    const std::string alias = rig.Create(body("Tesla V100-PCIE-32GB", 2));
    rig.RunDue();
    const std::string other = rig.Create(body("T4", 2));
    rig.RunDue();
    const std::string named = rig.Create(body("V100", 1));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", alias) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", other) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", named) == 0);
    CHECK(rig.Get(named).status == Status::kCreateInProgress);
    CHECK(rig.Get(named).status_reason == "queued: position 1 in group users, waiting for 1 × V100");

    REQUIRE(rig.api.Call("DELETE", "/deployments/" + alias).status == 204);
    for (int i = 0; i < 10 && rig.connector.CreateCalls("SITE-A", named) == 0; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.connector.CreateCalls("SITE-A", named) == 1);
}

TEST_CASE(
    "a request that may wait stays queued until admission_max_wait, then fails with why", "[workflow][admission]"
) {
    Rig rig;
    rig.services.options.admission_max_wait = minutes(1);
    rig.placer.SetFull(true);
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.Get(id).status == Status::kCreateInProgress);
    CHECK(rig.Get(id).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    for (int i = 0; i < 11; ++i) {  // 55 s
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.Get(id).status == Status::kCreateInProgress);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    const auto failed = rig.Get(id);
    CHECK(failed.status == Status::kCreateFailed);
    CHECK_THAT(
        failed.status_reason,
        Catch::StartsWith("queued: position 1 in group users, waiting for 1 × GPU; not admitted within 60 s")
    );

    // Freed capacity before the limit: the waiting request goes on.
    rig.services.options.admission_max_wait = minutes(0);
    const std::string next = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.Get(next).status_reason.rfind("queued:", 0) == 0);
    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", next) == 1);
}

TEST_CASE(
    "a create's maxWaitMins ends its wait sooner, never later than the operator's admission_max_wait",
    "[workflow][admission]"
) {
    Rig rig;
    rig.services.options.admission_max_wait = minutes(2);
    rig.placer.SetFull(true);
    const std::string soon = rig.Create(Json{{"maxWaitMins", 1}});
    const std::string late = rig.Create(Json{{"maxWaitMins", 10}});  // bounded by the operator's 2
    rig.RunDue();
    const auto waited = [&](const std::string& id) {
        for (int i = 0; i < 40 && rig.Get(id).status == Status::kCreateInProgress; ++i) {
            rig.api.clock.Advance(seconds(5));
            rig.RunDue();
        }
        return rig.Get(id);
    };
    const auto first = waited(soon);
    CHECK(first.status == Status::kCreateFailed);
    CHECK_THAT(first.status_reason, Catch::Contains("; not admitted within 60 s"));
    const auto second = waited(late);
    CHECK(second.status == Status::kCreateFailed);
    CHECK_THAT(second.status_reason, Catch::Contains("; not admitted within 120 s"));
    CHECK(rig.api.Call("POST", "/deployments", Json{{"template", "x"}, {"maxWaitMins", 0}}.dump()).status == 400);
}

TEST_CASE(
    "freed capacity admits the waiting request first in the fair-share order, not the oldest job",
    "[workflow][admission]"
) {
    Rig rig;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;  // high enough never to bind: the counters record what each group holds
    rig.placer.SetQuota(quota);
    const std::string held = rig.Create(Json::object(), "users");
    for (int i = 0; i < 10 && rig.Get(held).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(held).status == Status::kCreateComplete);  // "users" holds 1 GPU, "physics" none

    rig.placer.SetFull(true);
    const std::string users = rig.Create(Json::object(), "users");  // older: first in job order
    rig.api.clock.Advance(seconds(1));
    const std::string physics = rig.Create(Json::object(), "physics");
    rig.RunDue();
    CHECK(rig.Get(users).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    CHECK(rig.Get(physics).status_reason == "queued: position 1 in group physics, waiting for 1 × GPU");
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    // Both in the queue now: the group holding less goes first.
    CHECK(rig.Get(users).status_reason == "queued: position 2 in group users, waiting for 1 × GPU");

    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", physics) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", users) == 0);  // it keeps waiting behind physics
    CHECK(rig.Get(users).status == Status::kCreateInProgress);
    CHECK(rig.Get(users).status_reason == "queued: position 2 in group users, waiting for 1 × GPU");

    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", users) == 1);  // its turn once physics is admitted
}

// Records what admission reports to its observer (what the queue metrics show).
struct RecordingAdmission final : orch::workflow::AdmissionObserver {
    std::map<std::string, orch::workflow::GroupQueueFigures> last;  // the latest computation, by group
    std::vector<std::pair<std::string, double>> admitted;           // group, wait in seconds

    void QueueComputed(const std::string&, const std::vector<orch::workflow::GroupQueueFigures>& groups) override {
        last.clear();
        for (const auto& g : groups) {
            last[g.group] = g;
        }
    }
    void Admitted(const std::string&, const std::string& group, double wait_seconds) override {
        admitted.emplace_back(group, wait_seconds);
    }
};

TEST_CASE("admission reports each group's queue and share, and each admission's wait", "[workflow][admission]") {
    Rig rig;
    RecordingAdmission seen;
    rig.services.options.admission_observer = &seen;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    rig.placer.SetQuota(quota);
    const std::string held = rig.Create(Json::object(), "users");
    for (int i = 0; i < 10 && rig.Get(held).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(held).status == Status::kCreateComplete);
    REQUIRE(seen.admitted.size() == 1);
    CHECK(seen.admitted[0].first == "users");

    rig.placer.SetFull(true);
    rig.Create(Json::object(), "users");
    rig.api.clock.Advance(seconds(1));
    const std::string physics = rig.Create(Json::object(), "physics");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    // Both wait; users holds a GPU, physics none: users' share is the larger.
    REQUIRE(seen.last.count("users") == 1);
    REQUIRE(seen.last.count("physics") == 1);
    CHECK(seen.last.at("users").waiting == 1);
    CHECK(seen.last.at("physics").waiting == 1);
    CHECK(seen.last.at("users").share > seen.last.at("physics").share);

    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    REQUIRE(rig.connector.CreateCalls("SITE-A", physics) == 1);
    REQUIRE(seen.admitted.size() == 2);
    CHECK(seen.admitted[1].first == "physics");
    CHECK(seen.admitted[1].second == 10.0);  // created, then 5 s + 5 s of waiting on the clock
}

TEST_CASE("the operator's group weights order the queue (workflow.admission_weights)", "[workflow][admission]") {
    // users and physics hold one GPU each: equal shares, so by name physics would go first; with
    // weight 3 users' share is a third of physics' and users goes first.
    Rig rig;
    rig.services.options.admission_weights.groups = {{"users", 3}};
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    rig.placer.SetQuota(quota);
    for (const char* group : {"users", "physics"}) {
        const std::string held = rig.Create(Json::object(), group);
        for (int i = 0; i < 10 && rig.Get(held).status != Status::kCreateComplete; ++i) {
            rig.api.clock.Advance(seconds(1));
            rig.RunDue();
        }
        REQUIRE(rig.Get(held).status == Status::kCreateComplete);
    }
    rig.placer.SetFull(true);
    const std::string physics = rig.Create(Json::object(), "physics");  // older
    rig.api.clock.Advance(seconds(1));
    const std::string users = rig.Create(Json::object(), "users");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.Get(users).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    CHECK(rig.Get(physics).status_reason == "queued: position 2 in group physics, waiting for 1 × GPU");
    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", users) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", physics) == 0);
}

TEST_CASE("a group's past GPU-hours put it behind in the queue (the fair-share history)", "[workflow][admission]") {
    // physics ran a GPU deployment for 10 h and deleted it; users never ran one. Both hold
    // nothing now: by name physics would go first; its history puts users first.
    Rig rig;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    rig.placer.SetQuota(quota);
    const std::string past = rig.Create(Json::object(), "physics");
    for (int i = 0; i < 10 && rig.Get(past).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(past).status == Status::kCreateComplete);
    rig.api.clock.Advance(hours(10));
    REQUIRE(rig.api.Call("DELETE", "/deployments/" + past).status == 204);
    for (int i = 0; i < 20 && rig.Get(past).status != Status::kDeleteComplete; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    REQUIRE(rig.Get(past).status == Status::kDeleteComplete);

    rig.placer.SetFull(true);
    const std::string physics = rig.Create(Json::object(), "physics");  // older
    rig.api.clock.Advance(seconds(1));
    const std::string users = rig.Create(Json::object(), "users");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.Get(users).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    CHECK(rig.Get(physics).status_reason == "queued: position 2 in group physics, waiting for 1 × GPU");
}
