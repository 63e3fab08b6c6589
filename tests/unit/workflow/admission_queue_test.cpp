// The waiting record a queued deploy job carries: read back from the database, so a record of
// another shape must be skipped, never trusted or thrown on.
#include <orchestrator/workflow/admission_queue.hpp>

#include <catch2/catch.hpp>

using orch::Json;
using orch::workflow::WaitingFromJson;
using orch::workflow::WaitingRequest;
using orch::workflow::WaitingToJson;

TEST_CASE("a waiting record reads back what was written", "[workflow][admission]") {
    WaitingRequest w;
    w.group = "physics";
    w.priority = 3;
    w.queued_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'123'456));
    w.demand = {2, 8, 16384};
    const auto back = WaitingFromJson("d-1", WaitingToJson(w));
    REQUIRE(back);
    CHECK(back->deployment_id == "d-1");
    CHECK(back->group == "physics");
    CHECK(back->priority == 3);
    CHECK(back->queued_at == w.queued_at);
    CHECK(back->demand.gpus == 2);
    CHECK(back->demand.cpus == 8);
    CHECK(back->demand.ram_mb == 16384);
}

TEST_CASE("a waiting record of another shape is skipped", "[workflow][admission]") {
    CHECK_FALSE(WaitingFromJson("d", Json()));
    CHECK_FALSE(WaitingFromJson("d", Json::array()));
    CHECK_FALSE(WaitingFromJson("d", Json{{"group", 1}, {"since", 5}}));
    CHECK_FALSE(WaitingFromJson("d", Json{{"group", "g"}, {"since", "yesterday"}}));
    CHECK_FALSE(WaitingFromJson("d", Json{{"group", "g"}}));
    // Demand members of the wrong type count as nothing rather than failing the whole queue.
    const auto partial = WaitingFromJson("d", Json{{"group", "g"}, {"since", 5}, {"gpus", "two"}});
    REQUIRE(partial);
    CHECK(partial->demand.gpus == 0);
}
