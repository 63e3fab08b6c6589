// The store contract (store_contract.hpp) on workflow jobs: lease fencing, job timing, attempts,
// the appended log and the purge of deleted deployments.
#include "contract_helpers.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

namespace orch::test::contract {

void LeaseFencing(const Factory& make) {
    {
        auto f = make();
        const std::string id = Add(*f, {});
        const auto job = ClaimFor(*f, id, "w1");
        workflow::Transition done;
        done.status = DStatus::kCreateComplete;
        CHECK(CodeOf(f->workflow().Commit(job, "w2", done)) == ErrorCode::kConflict);
        CHECK(f->workflow().Heartbeat("w1", {job.id}, minutes(1)).value().empty());
        CHECK(f->workflow().Heartbeat("w2", {job.id}, minutes(1)).value() == std::vector<std::int64_t>{job.id});

        // A delete cancels the running step: its worker can write nothing more.
        REQUIRE(f->deployments().BeginDelete(id, false));
        CHECK(CodeOf(f->workflow().Commit(job, "w1", done)) == ErrorCode::kConflict);
        CHECK(MustGet(*f, id).status == DStatus::kDeleteInProgress);
        workflow::Attempt a;
        a.seq = 0;
        CHECK(CodeOf(f->workflow().StartAttempt(job, "w1", a)) == ErrorCode::kConflict);
        CHECK(CodeOf(f->workflow().Retry(job, "w1", milliseconds(0), "x")) == ErrorCode::kConflict);
        CHECK(f->workflow().Heartbeat("w1", {job.id}, minutes(1)).value() == std::vector<std::int64_t>{job.id});
    }
    {
        // An expired lease is taken over; the first worker is fenced out.
        auto f = make();
        const std::string id = Add(*f, {});
        auto first = f->workflow().Claim("w1", 1, milliseconds(1000));
        REQUIRE(first);
        REQUIRE(first->size() == 1);
        CHECK(f->workflow().Claim("w2", 1, minutes(1)).value().empty());
        f->Elapse(milliseconds(1500));
        auto second = f->workflow().Claim("w2", 1, minutes(1));
        REQUIRE(second);
        REQUIRE(second->size() == 1);
        CHECK(second->at(0).id == first->at(0).id);
        CHECK(second->at(0).attempts == 2);
        workflow::Transition done;
        done.status = DStatus::kCreateComplete;
        CHECK(CodeOf(f->workflow().Commit(first->at(0), "w1", done)) == ErrorCode::kConflict);
        REQUIRE(f->workflow().Commit(second->at(0), "w2", done));
        CHECK(MustGet(*f, id).status == DStatus::kCreateComplete);
    }
}

void JobTiming(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {});
    auto job = ClaimFor(*f, id);
    REQUIRE(f->workflow().Retry(job, "w1", milliseconds(0), "transient"));
    job = ClaimFor(*f, id);
    CHECK(job.attempts == 2);
    REQUIRE(f->workflow().Retry(job, "w1", std::chrono::hours(1), "later"));
    CHECK(f->workflow().Claim("w1", 10, minutes(1)).value().empty());
    CHECK(f->workflow().QueueDepth().value() == std::make_pair(std::int64_t{1}, std::int64_t{0}));

    // A committed step's next step waits its delay; a side job without delay is due now.
    const std::string other = Add(*f, {});
    const auto deploy = ClaimFor(*f, other);
    workflow::Transition t;
    t.next = workflow::NextJob{workflow::JobKind::kPoll, Json::object(), std::chrono::hours(1), true};
    t.side_jobs.push_back(workflow::NextJob{workflow::JobKind::kCallback, Json{{"n", 1}}, milliseconds(0), false});
    REQUIRE(f->workflow().Commit(deploy, "w1", t));
    auto due = f->workflow().Claim("w1", 10, minutes(1));
    REQUIRE(due);
    REQUIRE(due->size() == 1);
    CHECK(due->at(0).kind == workflow::JobKind::kCallback);
    CHECK_FALSE(due->at(0).workflow);
    CHECK(due->at(0).payload.value("n", 0) == 1);
    // waiting: the delayed retry and the poll; leased: the callback
    CHECK(f->workflow().QueueDepth().value() == std::make_pair(std::int64_t{2}, std::int64_t{1}));
}

void PollNowMovesWaitingPoll(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {});
    const std::string other = Add(*f, {});
    CHECK_FALSE(f->workflow().PollNow(id).value());  // a deploy job, not a poll
    CHECK_FALSE(f->workflow().PollNow("not-a-uuid").value());
    const auto deploy = ClaimFor(*f, id);
    workflow::Transition t;
    t.next = workflow::NextJob{workflow::JobKind::kPoll, Json{{"polls", 3}}, std::chrono::hours(1), true};
    REQUIRE(f->workflow().Commit(deploy, "w1", t));
    const auto other_deploy = ClaimFor(*f, other);
    REQUIRE(f->workflow().Commit(other_deploy, "w1", t));
    CHECK(f->workflow().Claim("w1", 10, minutes(1)).value().empty());

    // The site said something about `id`: its poll is due now, the other deployment's is not.
    CHECK(f->workflow().PollNow(id).value());
    CHECK_FALSE(f->workflow().PollNow(id).value());  // already due
    auto due = f->workflow().Claim("w1", 10, minutes(1));
    REQUIRE(due);
    REQUIRE(due->size() == 1);
    CHECK(due->at(0).deployment_id == id);
    CHECK(due->at(0).kind == workflow::JobKind::kPoll);
    CHECK(due->at(0).payload.value("polls", 0) == 3);
    CHECK_FALSE(f->workflow().PollNow(id).value());  // running: left to its worker
}

void AttemptsRecorded(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {});
    CHECK(f->deployments().ListAttempts(id).value().empty());
    auto job = ClaimFor(*f, id);
    workflow::Attempt a;
    a.seq = 0;
    a.provider_id = "SITE-A";
    a.provider_name = "Site A";
    a.service_id = "svc-a";
    a.target = Json{{"endpoint", "https://a"}};
    REQUIRE(f->workflow().StartAttempt(job, "w1", a));
    REQUIRE(f->workflow().StartAttempt(job, "w1", a));  // a re-run step writes it once
    auto running = f->deployments().ListAttempts(id);
    REQUIRE(running);
    REQUIRE(running->size() == 1);
    CHECK(running->at(0).outcome == domain::AttemptOutcome::kRunning);
    CHECK_FALSE(running->at(0).finished_at);
    CHECK(running->at(0).provider_name == "Site A");

    workflow::Transition t;
    workflow::Attempt failed;
    failed.seq = 0;
    failed.outcome = domain::AttemptOutcome::kFailed;
    failed.cause = domain::FailureCause::kRequest;  // kept, so site health can leave it out
    failed.reason = "site said no";
    failed.handle = Json{{"h", 1}};
    failed.cleaned = true;
    t.finish_attempt = failed;
    t.candidate_index = 1;
    t.next = workflow::NextJob{workflow::JobKind::kDeploy, Json::object(), milliseconds(0), true};
    REQUIRE(f->workflow().Commit(job, "w1", t));
    auto ended = f->deployments().ListAttempts(id);
    REQUIRE(ended);
    REQUIRE(ended->size() == 1);
    CHECK(ended->at(0).outcome == domain::AttemptOutcome::kFailed);
    CHECK(ended->at(0).finished_at);
    CHECK(ended->at(0).reason == "site said no");
    auto st = f->workflow().Load(id).value();
    REQUIRE(st);
    CHECK(st->candidate_index == 1);
    REQUIRE(st->attempts.size() == 1);
    CHECK(st->attempts[0].handle == Json{{"h", 1}});
    CHECK(st->attempts[0].target == Json{{"endpoint", "https://a"}});
    CHECK(st->attempts[0].cleaned);
    CHECK(st->attempts[0].cause == domain::FailureCause::kRequest);

    job = ClaimFor(*f, id);
    workflow::Transition placed;
    placed.placement = workflow::PlacementRecord{R"({"sites":[1]})", Json::array({Json{{"site", "A"}}})};
    placed.append_log = "hello";
    placed.outputs = Json{{"o", 1}};
    placed.provider_name = "Site A";
    placed.status = DStatus::kCreateComplete;
    REQUIRE(f->workflow().Commit(job, "w1", placed));
    CHECK(f->deployments().GetPlacement(id).value() == Json{{"sites", Json::array({1})}});
    CHECK(f->deployments().GetLog(id).value() == "hello");
    const auto d = MustGet(*f, id);
    CHECK(d.outputs == Json{{"o", 1}});
    CHECK(d.cloud_provider_name == "Site A");
    CHECK(f->workflow().Load(id).value()->candidates == Json::array({Json{{"site", "A"}}}));
    CHECK(f->deployments().ListAttempts(SequentialUuid()).value().empty());
}

void LogAppended(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {});
    CHECK(f->deployments().GetLog(id).value().empty());
    workflow::Transition first;
    first.append_log = "placed\n";
    first.next = workflow::NextJob{workflow::JobKind::kPoll, Json::object(), milliseconds(0), true};
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", first));
    workflow::Transition quiet;  // a step with nothing to say leaves the log as it is
    quiet.next = first.next;
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", quiet));
    workflow::Transition second;
    second.append_log = "polling\n";
    second.next = first.next;
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", second));
    CHECK(f->deployments().GetLog(id).value() == "placed\npolling\n");

    // Past the bound only the end is kept: the newest lines, whatever came before.
    workflow::Transition flood;
    flood.append_log = std::string(workflow::kMaxLogChars, 'x') + "last\n";
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", flood));
    const std::string log = f->deployments().GetLog(id).value();
    CHECK(log.size() == workflow::kMaxLogChars);
    CHECK(log.ends_with("xxlast\n"));
    CHECK(log.find("polling") == std::string::npos);
}

void PurgeDeleted(const Factory& make) {
    auto f = make();
    const std::string gone = Add(*f, {});
    const std::string pending = Add(*f, {});
    const std::string live = Add(*f, {});
    workflow::Transition deleted;
    deleted.status = DStatus::kDeleteComplete;
    REQUIRE(f->workflow().Commit(ClaimFor(*f, gone), "w1", deleted));
    deleted.side_jobs.push_back(workflow::NextJob{
        workflow::JobKind::kCleanup, Json::object(), std::chrono::hours(1), false});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, pending), "w1", deleted));
    Complete(*f, live);
    f->Elapse(milliseconds(50));
    CHECK(f->workflow().PurgeDeleted(std::chrono::hours(1), 10).value() == 0);  // too recent
    CHECK(f->workflow().PurgeDeleted(milliseconds(0), 10).value() == 1);
    CHECK_FALSE(f->deployments().Get(gone).value().has_value());
    CHECK(f->deployments().Get(pending).value().has_value());  // a job still refers to it
    CHECK(f->deployments().Get(live).value().has_value());
}

}  // namespace orch::test::contract
