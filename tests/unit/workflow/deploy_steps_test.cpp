// The deploy and poll steps, driven one due job at a time (Engine::RunOneDue) over the in-memory
// stores, a fake connector and a ManualClock: what is due, when a provider or the deployment
// times out and when a transient failure is retried are decided by the clock; nothing sleeps.
#include "deploy_steps_rig.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::connectors::FailureKind;
using orch::domain::AttemptOutcome;
using orch::domain::Status;
using orch::test::deploy_steps::Rig;
using std::chrono::minutes;
using std::chrono::seconds;

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
