// The elastic-cluster decision (DecideElastic) driven by a ManualClock: hysteresis, cool-down,
// bounded steps and the min/max bounds, as the sweep would call it sweep after sweep.
#include <common/clock.hpp>
#include <orchestrator/workflow/elastic_policy.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace {

using orch::workflow::DecideElastic;
using orch::workflow::ElasticAction;
using orch::workflow::ElasticDecision;
using orch::workflow::ElasticInput;
using orch::workflow::ElasticMemory;
using orch::workflow::ElasticSettings;
using std::chrono::seconds;

ElasticSettings Settings() {
    ElasticSettings s;
    s.scale_out_above = 2;
    s.scale_in_below = 0;
    s.jobs_per_worker = 2;
    s.max_step = 2;
    s.sustain = seconds(30);
    s.cooldown = seconds(120);
    return s;
}

// A controller over a simulated cluster: each Sweep is one sweep's call, remembering as the store does.
struct Loop {
    orch::ManualClock clock;
    ElasticSettings settings = Settings();
    ElasticMemory memory;
    int workers = 1;
    int min = 1;
    int max = 5;

    ElasticDecision Sweep(double queue) {
        const auto d = DecideElastic(settings, ElasticInput{workers, min, max, queue}, memory, clock.now());
        memory = d.memory;
        workers = d.target;
        return d;
    }
    void Wait(seconds s) { clock.Advance(s); }
};

}  // namespace

TEST_CASE("elastic: a queue must stay high for the sustain time before the cluster grows", "[elastic]") {
    Loop loop;
    CHECK(loop.Sweep(10).action == ElasticAction::kHold);  // first sight of the level
    loop.Wait(seconds(20));
    CHECK(loop.Sweep(10).action == ElasticAction::kHold);  // not yet held 30 s
    loop.Wait(seconds(10));
    const auto d = loop.Sweep(10);
    CHECK(d.action == ElasticAction::kScaleOut);
    CHECK(d.target == 3);  // (10 - 2) / 2 = 4 wanted, one step is at most 2
    CHECK(d.memory.last_scale == loop.clock.now());
    CHECK_FALSE(d.memory.high_since.has_value());  // the next scale needs the level to hold anew
}

TEST_CASE("elastic: a dip into the dead band restarts the sustain time", "[elastic]") {
    Loop loop;
    loop.Sweep(10);
    loop.Wait(seconds(25));
    CHECK(loop.Sweep(1).action == ElasticAction::kHold);  // between the thresholds
    loop.Wait(seconds(10));
    CHECK(loop.Sweep(10).action == ElasticAction::kHold);  // 35 s since the first, but interrupted
    loop.Wait(seconds(29));
    CHECK(loop.Sweep(10).action == ElasticAction::kHold);
    loop.Wait(seconds(1));
    CHECK(loop.Sweep(10).action == ElasticAction::kScaleOut);
}

TEST_CASE("elastic: nothing moves within the cool-down, whatever the signal", "[elastic]") {
    Loop loop;
    loop.Sweep(10);
    loop.Wait(seconds(30));
    REQUIRE(loop.Sweep(10).action == ElasticAction::kScaleOut);
    REQUIRE(loop.workers == 3);
    // The queue drains at once and stays drained: held for the sustain time, but cooling down.
    for (int i = 0; i < 3; ++i) {
        loop.Wait(seconds(30));
        const auto d = loop.Sweep(0);
        CHECK(d.action == ElasticAction::kHold);
        CHECK(d.reason == "cooling down after the last scale");
    }
    loop.Wait(seconds(30));  // 120 s after the scale
    const auto d = loop.Sweep(0);
    CHECK(d.action == ElasticAction::kScaleIn);
    CHECK(d.target == 1);  // one step of 2
}

TEST_CASE("elastic: a queue oscillating around the threshold does not flap the cluster", "[elastic]") {
    Loop loop;
    int scales = 0;
    for (int i = 0; i < 40; ++i) {
        loop.Wait(seconds(10));
        scales += loop.Sweep(i % 2 == 0 ? 5 : 0).action == ElasticAction::kHold ? 0 : 1;
    }
    CHECK(scales == 0);
    CHECK(loop.workers == 1);
}

TEST_CASE("elastic: the target stays within min and max", "[elastic]") {
    Loop loop;
    loop.max = 4;
    std::vector<int> seen;
    for (int i = 0; i < 20; ++i) {
        loop.Sweep(1000);
        seen.push_back(loop.workers);
        loop.Wait(seconds(150));
    }
    CHECK(*std::max_element(seen.begin(), seen.end()) == 4);
    CHECK(seen.front() == 1);
    CHECK(loop.Sweep(1000).action == ElasticAction::kHold);
    for (int i = 0; i < 20; ++i) {
        loop.Wait(seconds(150));
        loop.Sweep(0);
    }
    CHECK(loop.workers == 1);  // the minimum, never below
    loop.Wait(seconds(150));
    CHECK(loop.Sweep(0).reason.find("at the minimum") != std::string::npos);
}

TEST_CASE("elastic: a count outside the bounds is brought back at once, within the bounds", "[elastic]") {
    Loop loop;
    loop.workers = 0;
    loop.min = 2;
    auto d = loop.Sweep(0);
    CHECK(d.action == ElasticAction::kScaleOut);
    CHECK(d.target == 2);
    loop.workers = 9;
    d = loop.Sweep(1000);  // even in the cool-down of the previous correction
    CHECK(d.action == ElasticAction::kScaleIn);
    CHECK(d.target == 5);
}

TEST_CASE("elastic: a NaN or huge signal neither crashes nor overshoots", "[elastic][security]") {
    Loop loop;
    CHECK(loop.Sweep(std::numeric_limits<double>::quiet_NaN()).action == ElasticAction::kHold);
    loop.Sweep(std::numeric_limits<double>::infinity());
    loop.Wait(seconds(30));
    const auto d = loop.Sweep(1e300);
    CHECK(d.action == ElasticAction::kScaleOut);
    CHECK(d.target == 3);  // one bounded step
}
