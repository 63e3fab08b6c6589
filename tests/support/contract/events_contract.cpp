// The store contract (store_contract.hpp) on the event log.
#include "contract_helpers.hpp"

#include <catch2/catch.hpp>

namespace orch::test::contract {

namespace {

std::vector<std::int64_t> Ids(const std::vector<domain::Event>& events) {
    std::vector<std::int64_t> out;
    out.reserve(events.size());
    for (const auto& e : events) {
        out.push_back(e.id);
    }
    return out;
}

}  // namespace

void EventLog(const Factory& make) {
    auto f = make();
    const std::string alice = Add(*f, {.owner = kAlice});
    const std::string carol = Add(*f, {.owner = kCarol});
    CHECK(f->events().LatestId().value() == 0);
    workflow::Transition t;
    t.status_reason = "Deploying on site-a (attempt 1 of 2)";
    t.events.push_back(MakeEvent(*f, domain::EventType::kPlacementDecided, Json{{"sites", {"site-a", "site-b"}}}));
    t.events.push_back(MakeEvent(*f, domain::EventType::kAttemptStarted, Json{{"site", "site-a\nid: 9"}}));
    const auto alice_job = ClaimFor(*f, alice);
    REQUIRE(f->workflow().Commit(alice_job, "w1", t));
    // A commit after the lease was lost writes no event either.
    const auto carol_job = ClaimFor(*f, carol);
    workflow::Transition lost;
    lost.events.push_back(MakeEvent(*f, domain::EventType::kFailed, Json::object()));
    CHECK_FALSE(f->workflow().Commit(carol_job, "someone-else", lost));
    workflow::Transition done;
    done.status = DStatus::kCreateComplete;
    done.events.push_back(MakeEvent(*f, domain::EventType::kCompleted, Json{{"status", "CREATE_COMPLETE"}}));
    REQUIRE(f->workflow().Commit(carol_job, "w1", done));

    const auto all = f->events().After({.owner = Scope(std::nullopt)}).value();
    REQUIRE(all.size() == 3);
    CHECK(all[0].id < all[1].id);
    CHECK(all[1].id < all[2].id);
    CHECK(all[0].deployment_id == alice);
    CHECK(all[0].type == domain::EventType::kPlacementDecided);
    CHECK(all[0].data == Json{{"sites", {"site-a", "site-b"}}});
    CHECK(all[1].data["site"] == "site-a\nid: 9");
    CHECK(all[1].time == t.events[1].time);
    CHECK(all[2].deployment_id == carol);
    CHECK(all[2].type == domain::EventType::kCompleted);
    CHECK(f->events().LatestId().value() == all[2].id);

    // Resuming after an id gives exactly what follows; scoping is the list's.
    CHECK(
        Ids(f->events().After({.owner = Scope(std::nullopt), .after_id = all[0].id}).value()) ==
        std::vector{all[1].id, all[2].id}
    );
    CHECK(Ids(f->events().After({.owner = Scope(std::nullopt), .limit = 1}).value()) == std::vector{all[0].id});
    CHECK(Ids(f->events().After({.owner = Scope("https://iam-a/")}).value()) == std::vector{all[0].id, all[1].id});
    CHECK(Ids(f->events().After({.owner = Scope("https://iam-b/")}).value()) == std::vector{all[2].id});
    CHECK(f->events().After({.owner = Scope("https://iam-c/")}).value().empty());
    CHECK(
        Ids(f->events().After({.owner = Scope(std::nullopt), .deployment_id = carol}).value()) == std::vector{all[2].id}
    );
    CHECK(f->events().After({.owner = Scope("https://iam-a/"), .deployment_id = carol}).value().empty());

    f->Elapse(milliseconds(50));
    CHECK(f->workflow().PurgeEvents(std::chrono::hours(1), 10).value() == 0);
    CHECK(f->workflow().PurgeEvents(milliseconds(0), 2).value() == 2);
    CHECK(Ids(f->events().After({.owner = Scope(std::nullopt)}).value()) == std::vector{all[2].id});
    CHECK(f->workflow().PurgeEvents(milliseconds(0), 10).value() == 1);
}

}  // namespace orch::test::contract
