// The store contract (store_contract.hpp) on the callback outbox.
#include "contract_helpers.hpp"

#include <catch2/catch.hpp>

namespace orch::test::contract {

void CallbackOutbox(const Factory& make) {
    auto f = make();
    const std::string hooked = Add(*f, {.callback = "https://hooks.example.org/cb?k=1"});
    const std::string silent = Add(*f, {});
    const std::string lost = Add(*f, {.callback = "https://hooks.example.org/lost"});
    CHECK(f->workflow().ClaimCallbacks("d1", 10, minutes(1)).value().empty());

    // A committed change with a callback URL queues one delivery; without a URL, or when the
    // lease was lost (nothing committed), none.
    workflow::Transition t;
    t.status = DStatus::kCreateComplete;
    t.callback = true;
    const auto before = f->Now();
    REQUIRE(f->workflow().Commit(ClaimFor(*f, hooked), "w1", t));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, silent), "w1", t));
    const auto lost_job = ClaimFor(*f, lost);
    CHECK(CodeOf(f->workflow().Commit(lost_job, "someone-else", t)) == ErrorCode::kConflict);

    auto claimed = f->workflow().ClaimCallbacks("d1", 10, minutes(1)).value();
    REQUIRE(claimed.size() == 1);
    const auto first = claimed[0];
    CHECK(first.deployment_id == hooked);
    CHECK(first.url == "https://hooks.example.org/cb?k=1");
    CHECK(first.attempts == 1);
    CHECK(first.lease_owner == "d1");
    CHECK(first.created_at >= before - seconds(1));
    CHECK(first.created_at <= f->Now() + seconds(1));
    // Leased: nobody else gets it; only its claimer can settle it.
    CHECK(f->workflow().ClaimCallbacks("d2", 10, minutes(1)).value().empty());
    auto stranger = first;
    stranger.lease_owner = "d2";
    CHECK(CodeOf(f->workflow().FinishCallback(stranger)) == ErrorCode::kConflict);
    CHECK(CodeOf(f->workflow().RetryCallback(stranger, milliseconds(0), "x")) == ErrorCode::kConflict);

    // A retry waits its delay, then counts as the next attempt.
    REQUIRE(f->workflow().RetryCallback(first, std::chrono::hours(1), "HTTP 500"));
    CHECK(f->workflow().ClaimCallbacks("d1", 10, minutes(1)).value().empty());
    REQUIRE(f->workflow().Commit(lost_job, "w1", t));  // now committed: its delivery is queued
    auto second = f->workflow().ClaimCallbacks("d1", 10, milliseconds(10)).value();
    REQUIRE(second.size() == 1);
    CHECK(second[0].deployment_id == lost);
    CHECK(second[0].url == "https://hooks.example.org/lost");

    // A claimer that dies (its lease runs out) loses the delivery to another, once.
    f->Elapse(milliseconds(50));
    auto taken = f->workflow().ClaimCallbacks("d2", 10, minutes(1)).value();
    REQUIRE(taken.size() == 1);
    CHECK(taken[0].id == second[0].id);
    CHECK(taken[0].attempts == 2);
    CHECK(CodeOf(f->workflow().FinishCallback(second[0])) == ErrorCode::kConflict);
    REQUIRE(f->workflow().FinishCallback(taken[0]));
    CHECK(CodeOf(f->workflow().FinishCallback(taken[0])) == ErrorCode::kConflict);
    f->Elapse(milliseconds(50));
    CHECK(f->workflow().ClaimCallbacks("d2", 10, milliseconds(10)).value().empty());
}

}  // namespace orch::test::contract
