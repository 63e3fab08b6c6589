// What a site makes for a failed attempt after its cleanup (STATUS, issue 18: a Nova server made
// after polling stopped stayed until the deployment's delete): the failed attempt's site is swept
// again a bounded number of times (StepOptions::late_sweeps), driven by the ManualClock.
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

// Runs what is due, every `step` of clock time, `times` times.
void RunFor(Rig& rig, std::chrono::milliseconds step, int times) {
    for (int i = 0; i < times; ++i) {
        rig.api.clock.Advance(step);
        rig.RunDue();
    }
}

// A deployment whose SITE-A attempt failed at its create and which completed on SITE-B; the
// SITE-A cleanup and its in-flight check (connector_call_timeout after the attempt) have run.
std::string FailedOnAThenCompleteOnB(Rig& rig) {
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    RunFor(rig, seconds(1), 1);
    REQUIRE(rig.Get(id).status == Status::kCreateComplete);
    const auto attempts = rig.Attempts(id);
    REQUIRE(attempts.size() == 2);
    REQUIRE(attempts[0].outcome == AttemptOutcome::kFailed);
    RunFor(rig, rig.services.options.create_call_timeout, 1);
    return id;
}

}  // namespace

TEST_CASE(
    "a server the failed attempt's site makes after its cleanup is deleted by a later sweep, a bounded number of times",
    "[workflow][reliability]"
) {
    Rig rig;
    const std::string id = FailedOnAThenCompleteOnB(rig);
    // Nova finishes SITE-A's create now: polling of SITE-A stopped long ago.
    rig.connector.MakeLate("SITE-A", id);
    REQUIRE(rig.connector.Live().count("SITE-A/" + id) == 1);

    // Before the fix nothing looked at SITE-A again: the server stayed until the delete.
    RunFor(rig, rig.services.options.late_sweep_interval, 1);
    RunFor(rig, seconds(1), 3);  // the sweep's delete, then its polls until SITE-A says gone
    CHECK(rig.connector.Live() == std::set<std::string>{"SITE-B/" + id});

    // One made later still is found by the next sweep; the last sweep schedules none.
    rig.connector.MakeLate("SITE-A", id);
    RunFor(rig, rig.services.options.late_sweep_interval, 1);
    RunFor(rig, seconds(1), 3);
    CHECK(rig.connector.Live() == std::set<std::string>{"SITE-B/" + id});
    RunFor(rig, rig.services.options.late_sweep_interval, rig.services.options.late_sweeps);
    rig.connector.MakeLate("SITE-A", id);
    RunFor(rig, rig.services.options.late_sweep_interval, 3);
    CHECK(rig.connector.Live().count("SITE-A/" + id) == 1);  // bounded: no sweep is left
    CHECK(rig.Get(id).status == Status::kCreateComplete);    // the live deployment is untouched
}

TEST_CASE("workflow.late_sweeps 0 turns the sweeps off", "[workflow]") {
    Rig rig;
    rig.services.options.late_sweeps = 0;
    const std::string id = FailedOnAThenCompleteOnB(rig);
    rig.connector.MakeLate("SITE-A", id);
    RunFor(rig, rig.services.options.late_sweep_interval, 3);
    CHECK(rig.connector.Live().count("SITE-A/" + id) == 1);
}
