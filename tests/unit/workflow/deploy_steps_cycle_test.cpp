// The place step runs the admission cycle (docs/admission.md, "Admission cycle"): a large
// request's reservation with backfill around it, and cohorts that lend unused GPU quota.
#include "deploy_steps_rig.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::domain::Status;
using orch::test::deploy_steps::Rig;
using std::chrono::seconds;

Json Gpus(int count) {
    return Json{{"parameters", {{"count", count}}}};
}

// Runs the due jobs every admission_retry until `done` or 20 rounds.
template <typename Done>
void RetryUntil(Rig& rig, Done done) {
    for (int i = 0; i < 20 && !done(); ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
}

}  // namespace

TEST_CASE(
    "a large request holds the site it needs: small ones backfill elsewhere and cannot starve it",
    "[workflow][admission][cycle]"
) {
    Rig rig;
    rig.placer.SetGpus("SITE-A", 4, 2);  // 2 of 4 GPUs taken
    rig.placer.SetGpus("SITE-B", 1, 1);
    const std::string large = rig.Create(Gpus(4));
    rig.RunDue();
    CHECK(rig.Get(large).status_reason == "queued: position 1 in group users, waiting for 4 × GPU");

    // Behind the large one, a 1-GPU request backfills on SITE-B, too small ever to hold the
    // large one (the strict order made it wait).
    const std::string small = rig.Create(Gpus(1));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-B", small) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", small) == 0);

    // A stream of small requests: SITE-A has 2 free GPUs but is held for the large request.
    rig.placer.SetGpus("SITE-B", 1, 0);
    std::vector<std::string> stream;
    for (int i = 0; i < 3; ++i) {
        stream.push_back(rig.Create(Gpus(1)));
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    for (const auto& id : stream) {
        CHECK(rig.connector.CreateCalls("SITE-A", id) == 0);
        CHECK(rig.Get(id).status == Status::kCreateInProgress);
    }
    // SITE-A frees up: the large request starts there.
    rig.placer.SetGpus("SITE-A", 4, 4);
    RetryUntil(rig, [&] { return rig.connector.CreateCalls("SITE-A", large) == 1; });
    CHECK(rig.connector.CreateCalls("SITE-A", large) == 1);
}

TEST_CASE(
    "a cohort group borrows within its borrowing limit, and the lender gets its quota back first",
    "[workflow][admission][cycle][cohort]"
) {
    Rig rig;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::workflow::CohortQuota lender;
    lender.nominal = 2;
    orch::workflow::CohortQuota borrower;
    borrower.nominal = 1;
    borrower.borrowing_limit = 1;
    rig.services.options.admission_cohorts.cohorts["research"] = {{"users", lender}, {"physics", borrower}};

    // physics borrows one of users' GPUs (nominal 1 + 1 borrowed)...
    const std::string borrowed = rig.Create(Gpus(2), "physics");
    RetryUntil(rig, [&] { return rig.Get(borrowed).status == Status::kCreateComplete; });
    REQUIRE(rig.Get(borrowed).status == Status::kCreateComplete);
    // ...but not a third: past its borrowing limit.
    const std::string over = rig.Create(Gpus(1), "physics");
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", over) == 0);
    CHECK(rig.Get(over).status_reason.rfind("queued: ", 0) == 0);

    // users needs both its GPUs: one is lent out, so it waits; nothing is preempted.
    const std::string reclaim = rig.Create(Gpus(2), "users");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", reclaim) == 0);
    CHECK(rig.Get(reclaim).status_reason.rfind("queued: ", 0) == 0);
    CHECK(rig.Get(borrowed).status == Status::kCreateComplete);

    // The borrowed deployment ends and gives the lent GPU back: the lender's request starts.
    REQUIRE(rig.api.Call("DELETE", "/deployments/" + borrowed).status == 204);
    RetryUntil(rig, [&] { return rig.connector.CreateCalls("SITE-A", reclaim) == 1; });
    CHECK(rig.connector.CreateCalls("SITE-A", reclaim) == 1);
}
