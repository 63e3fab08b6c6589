// The deploy steps' events and log (deploy_steps_test.cpp has the steps themselves): statusReason,
// the durable event log and the deployment's log, each line written once, stamped by the clock.
#include "deploy_steps_rig.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

using orch::Json;
using orch::connectors::FailureKind;
using orch::domain::Status;
using orch::test::deploy_steps::Rig;
using std::chrono::minutes;
using std::chrono::seconds;

}  // namespace

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
