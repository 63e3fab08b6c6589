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

std::vector<std::int64_t> Admitted(const std::vector<store::LoggedEvent>& events, const auth::OwnerFilter& owner) {
    std::vector<std::int64_t> out;
    for (const auto& e : events) {
        if (owner.Admits(e.owner_issuer, e.owner_subject)) {
            out.push_back(e.event.id);
        }
    }
    return out;
}

// One event for `id`, committed by its due job.
std::int64_t CommitEvent(StoreFixture& f, const std::string& id) {
    workflow::Transition t;
    t.events.push_back(MakeEvent(f, domain::EventType::kProgress, Json{{"statusReason", "placing"}}));
    REQUIRE(f.workflow().Commit(ClaimFor(f, id), "w1", t));
    return f.events().LatestId().value();
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

void EventWindowScope(const Factory& make) {
    auto f = make();
    const domain::Owner bob{kAlice.issuer, "bob"};
    const std::int64_t a = CommitEvent(*f, Add(*f, {.owner = kAlice}));
    const std::int64_t b = CommitEvent(*f, Add(*f, {.owner = bob}));
    const std::int64_t c = CommitEvent(*f, Add(*f, {.owner = kCarol}));
    const std::int64_t u = CommitEvent(*f, Add(*f, {}));  // created while auth was disabled

    const auto range = f->events().Range(0, u, 100).value();
    REQUIRE(range.size() == 4);
    CHECK(range[0].event.id == a);
    CHECK(range[0].owner_issuer == kAlice.issuer);
    CHECK(range[0].owner_subject == kAlice.subject);
    CHECK(range[0].event.data == Json{{"statusReason", "placing"}});
    CHECK(range[2].owner_issuer == kCarol.issuer);
    CHECK(range[3].owner_issuer.empty());
    CHECK(range[3].owner_subject.empty());
    // Bounds: after is exclusive, up_to inclusive, at most limit from the oldest.
    const auto middle = f->events().Range(a, c, 100).value();
    REQUIRE(middle.size() == 2);
    CHECK(middle[0].event.id == b);
    CHECK(middle[1].event.id == c);
    const auto first = f->events().Range(0, u, 1).value();
    REQUIRE(first.size() == 1);
    CHECK(first[0].event.id == a);
    CHECK(f->events().Range(u, u + 100, 100).value().empty());

    // The same scoping in memory as in the store, for every kind of filter a stream can hold.
    std::vector<auth::OwnerFilter> filters{
        Scope(std::nullopt), Scope(kAlice.issuer), Scope(kCarol.issuer), Scope("https://iam-c/")};
    filters.push_back(Scope(kAlice.issuer).OwnedBy(kAlice.issuer, kAlice.subject));
    filters.push_back(Scope(kAlice.issuer).OwnedBy(kCarol.issuer, kCarol.subject));  // another issuer: nothing
    filters.push_back(Scope(std::nullopt).OwnedBy(kCarol.issuer, kCarol.subject));
    for (std::size_t i = 0; i < filters.size(); ++i) {
        INFO("filter " << i);
        CHECK(Admitted(range, filters[i]) == Ids(f->events().After({.owner = filters[i]}).value()));
    }
    CHECK(Admitted(range, Scope(kAlice.issuer)) == std::vector{a, b, u});
}

}  // namespace orch::test::contract
