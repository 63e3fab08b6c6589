// gpu-aware ranking: SLA priority first, then fit, availability, success rate, latency;
// a failing site's circuit breaker sends it last; ties by service id.
#include "synthetic_world.hpp"

#include <catch2/catch.hpp>

namespace orch::test {
namespace {

std::vector<std::string> Order(const placement::PlacementDecision& decision) {
    std::vector<std::string> out;
    for (const auto& candidate : decision.ranked) {
        out.push_back(candidate.target.service_id);
    }
    return out;
}

TEST_CASE("gpu-aware: the SLA weight dominates, then the score", "[placement][ranking]") {
    SyntheticWorld world({}, false);
    auto spec = MarathonSpec(0);
    const auto decision = world.Place(spec);
    // All Marathon sites weigh 0.5; D has no GPUs, so a CPU app keeps the GPU sites free.
    REQUIRE(Order(decision) == std::vector<std::string>{"D-marathon", "B-marathon", "C-marathon"});
    CHECK(decision.verdicts[0].score_breakdown.at("fit") == 1.0);
    CHECK(decision.verdicts[1].score_breakdown.at("fit") == 0.5);
    CHECK(decision.verdicts[1].score == Approx(decision.verdicts[2].score));  // tie → B before C
}

TEST_CASE("gpu-aware: recent failures lower the success rate, an open breaker ranks last", "[placement][ranking]") {
    placement::PlacementOptions options;
    SyntheticWorld world(options, false);
    const auto spec = MarathonSpec(0);
    for (int i = 0; i < 3; ++i) {
        world.history.Record(
            "D-marathon",
            {world.now - std::chrono::minutes(5 - i), false, "d" + std::to_string(i), "Marathon refused the app"}
        );
    }
    const auto decision = world.Place(spec);
    REQUIRE(Order(decision) == std::vector<std::string>{"B-marathon", "C-marathon", "D-marathon"});
    const auto& last = decision.verdicts[2];
    CHECK(last.score_breakdown.at("circuit_breaker") == "open");
    CHECK(last.score_breakdown.at("recent_failures") == 3);
    CHECK_THAT(
        last.reasons.back().Text(),
        Catch::Contains("ranked last: its last 3 attempts failed (Marathon refused the app)")
    );

    world.now += std::chrono::hours(1);  // after the cooldown the breaker closes, the low success rate stays
    const auto later = world.Place(spec);
    const auto& d = *std::find_if(later.verdicts.begin(), later.verdicts.end(), [](const auto& v) {
        return v.service_id == "D-marathon";
    });
    CHECK(d.score_breakdown.at("circuit_breaker") == "closed");
    CHECK(d.score_breakdown.at("success_rate") == Approx(0.2));  // (0 + 1) / (3 + 2)

    world.history.Record("D-marathon", {world.now, true, "d9", ""});
    world.history.Record("D-marathon", {world.now, true, "d10", ""});
    world.history.Record("D-marathon", {world.now, true, "d11", ""});
    const auto recovered = world.Place(spec);
    CHECK(Order(recovered).front() == "D-marathon");
    CHECK(recovered.verdicts[0].score_breakdown.at("success_rate") == Approx(0.5));  // (3 + 1) / (6 + 2)
    CHECK(recovered.verdicts[0].score > d.score);
}

TEST_CASE("gpu-aware: live availability and latency count", "[placement][ranking]") {
    SyntheticWorld world;  // C is up but slow (4 s); B unknown
    const auto decision = world.Place(MarathonSpec(1));
    REQUIRE(Order(decision).size() == 2);
    const auto& c = *std::find_if(decision.verdicts.begin(), decision.verdicts.end(), [](const auto& v) {
        return v.service_id == "C-marathon";
    });
    CHECK(c.score_breakdown.at("availability") == 1.0);
    CHECK(c.score_breakdown.at("latency") == Approx(0.2));
    CHECK(c.score_breakdown.at("response_ms") == 4000.0);
}

TEST_CASE("gpu-aware: best fit packs GPUs tightly", "[placement][ranking]") {
    SyntheticWorld world;
    world.snapshot->providers["SITE-C"].capacity.free_gpus = 1;  // C: 1 free V100 → exact fit for 1
    const auto decision = world.Place(MarathonSpec(1));
    REQUIRE(Order(decision) == std::vector<std::string>{"C-marathon", "B-marathon"});
    CHECK(decision.verdicts[0].score_breakdown.at("fit") == 1.0);
    CHECK(decision.verdicts[1].score_breakdown.at("fit") == 0.25);  // 1 of 4 free T4s
}

TEST_CASE("gpu-aware: a higher SLA weight beats a better score", "[placement][ranking]") {
    SyntheticWorld world({}, false);
    // A (OpenStack, weight 1.0) vs nothing else for VMs: add a VM that only A can run and check rank 1.
    auto spec = GpuVmSpec(1);
    spec.nodes[0].resources.os_version = "22.04";
    const auto decision = world.Place(spec);
    REQUIRE(decision.verdicts[0].service_id == "A-nova");
    CHECK(decision.verdicts[0].rank == 1);
    CHECK(decision.verdicts[0].score_breakdown.at("sla_weight") == 1.0);
}

}  // namespace
}  // namespace orch::test
