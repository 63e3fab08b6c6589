// The store contract (store_contract.hpp) on the elastic autoscaler's state.
#include "contract_helpers.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

namespace orch::test::contract {

void UpdateEvents(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {.owner = kAlice, .callback = "https://hooks.example.org/scale"});
    domain::Event e;
    e.type = domain::EventType::kElasticScale;
    e.time = domain::TimePoint(milliseconds(1'800'000'000'000));
    e.data = Json{{"action", "scale_out"}, {"from", 1}, {"to", 3}};
    const auto elastic_events = [&] {
        int n = 0;
        // The Result must outlive the loop: `.value()` of a temporary is a reference into it.
        const auto events = f->events().After({.owner = Scope(std::nullopt), .deployment_id = id});
        for (const auto& got : events.value()) {
            n += got.type == domain::EventType::kElasticScale ? 1 : 0;
        }
        return n;
    };
    // Refused (still being created): neither the event nor a callback delivery.
    CHECK(
        CodeOf(f->deployments().BeginUpdate({.id = id, .parameters = Json::object(), .events = {e}})) ==
        ErrorCode::kConflict
    );
    CHECK(elastic_events() == 0);
    CHECK(f->workflow().ClaimCallbacks("d1", 10, minutes(1)).value().empty());

    Complete(*f, id);
    REQUIRE(f->deployments().BeginUpdate({.id = id, .template_text = "t2", .parameters = Json::object(), .events = {e}})
    );
    CHECK(MustGet(*f, id).status == DStatus::kUpdateInProgress);
    CHECK(elastic_events() == 1);
    const auto deliveries = f->workflow().ClaimCallbacks("d1", 10, minutes(1)).value();
    REQUIRE(deliveries.size() == 1);
    CHECK(deliveries[0].url == "https://hooks.example.org/scale");
    // An update without events (a user's PUT) records none and queues no delivery here.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", workflow::Transition{.status = DStatus::kUpdateComplete}));
    REQUIRE(f->deployments().BeginUpdate({.id = id, .template_text = "t3", .parameters = Json::object()}));
    CHECK(elastic_events() == 1);
    CHECK(f->workflow().ClaimCallbacks("d2", 10, minutes(1)).value().empty());
}

void ElasticState(const Factory& make) {
    auto f = make();
    const std::string running = Add(*f, {.owner = kAlice, .callback = "https://hooks.example.org/elastic"});
    const std::string pending = Add(*f, {.owner = kAlice, .offset = seconds(1)});
    Complete(*f, running);
    // Only a complete deployment may be scaled.
    CHECK(f->elastic().Candidates(10).value() == std::vector{running});

    // Times from the caller's clock, kept to the microsecond (whole ms here).
    const auto t0 = domain::TimePoint(milliseconds(1'800'000'000'000));
    auto first = f->elastic().ClaimTurn(running, t0, seconds(10));
    REQUIRE(first);
    REQUIRE(first->has_value());
    CHECK(**first == workflow::ElasticMemory{});
    // Within the gap the turn is taken, whoever asks.
    CHECK_FALSE(f->elastic().ClaimTurn(running, t0 + seconds(5), seconds(10)).value().has_value());
    CHECK_FALSE(f->elastic().ClaimTurn("00000000-0000-0000-0000-000000000000", t0, seconds(10)).value().has_value());

    workflow::ElasticMemory m;
    m.high_since = t0 - seconds(40);
    m.last_scale = t0;
    domain::Event e;
    e.type = domain::EventType::kElasticScale;
    e.time = t0;
    e.data = Json{{"action", "scale_out"}, {"from", 1}, {"to", 2}, {"queue", 7.5}};
    REQUIRE(f->elastic().Save(running, m, e));
    auto again = f->elastic().ClaimTurn(running, t0 + seconds(10), seconds(10));
    REQUIRE(again);
    REQUIRE(again->has_value());
    CHECK(**again == m);
    const auto events = f->events().After({.owner = Scope(std::nullopt), .deployment_id = running}).value();
    REQUIRE_FALSE(events.empty());
    CHECK(events.back().type == domain::EventType::kElasticScale);
    CHECK(events.back().data["queue"] == 7.5);
    // The decision queued one callback delivery (Complete's transition asks for none), and a Save
    // without an event queues none.
    REQUIRE(f->elastic().Save(running, m, std::nullopt));
    const auto deliveries = f->workflow().ClaimCallbacks("d1", 10, minutes(1)).value();
    REQUIRE(deliveries.size() == 1);
    CHECK(deliveries[0].deployment_id == running);
    CHECK(deliveries[0].url == "https://hooks.example.org/elastic");
    // Swept most recently goes last: the other complete deployment (never swept) comes first.
    Complete(*f, pending);
    CHECK(f->elastic().Candidates(10).value() == std::vector{pending, running});
    CHECK(f->elastic().Candidates(1).value() == std::vector{pending});

    // Two sweeps racing for one turn: exactly one gets it.
    std::atomic<int> won{0};
    std::vector<std::thread> racers;
    racers.reserve(4);
    for (int i = 0; i < 4; ++i) {
        racers.emplace_back([&] {
            auto turn = f->elastic().ClaimTurn(running, t0 + seconds(60), seconds(10));
            if (turn && turn->has_value()) {
                ++won;
            }
        });
    }
    for (auto& r : racers) {
        r.join();
    }
    CHECK(won == 1);
}

}  // namespace orch::test::contract
