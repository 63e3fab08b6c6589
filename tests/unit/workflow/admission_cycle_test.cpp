// One admission cycle: reservation of the head, backfill, cohort borrowing
// (workflow/admission_cycle.hpp, docs/admission.md).
#include <orchestrator/workflow/admission_cycle.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using orch::workflow::AdmissionCycle;
using orch::workflow::CohortQuota;
using orch::workflow::CycleInput;
using orch::workflow::CycleResult;
using orch::workflow::RunningGpus;
using orch::workflow::SiteGpus;
using orch::workflow::WaitingRequest;
using std::chrono::hours;

namespace {

const auto kNow = std::chrono::system_clock::time_point{} + hours(1000);

WaitingRequest Request(
    const std::string& id, const std::string& group, double gpus, std::optional<hours> estimate = {}
) {
    WaitingRequest w;
    w.deployment_id = id;
    w.group = group;
    w.queued_at = kNow;
    w.demand.gpus = gpus;
    if (estimate) {
        w.estimate = *estimate;
    }
    return w;
}

// The cycle over `waiting` taken in the order given (the fair-share order is FairShareOrder's
// business, tested in fair_share_test.cpp).
CycleResult Run(const std::vector<WaitingRequest>& waiting, CycleInput in) {
    in.waiting = &waiting;
    for (std::size_t i = 0; i < waiting.size(); ++i) {
        in.order.push_back(i);
    }
    in.now = kNow;
    return AdmissionCycle(in);
}

std::vector<std::string> AdmittedIds(const std::vector<WaitingRequest>& waiting, const CycleResult& result) {
    std::vector<std::string> ids;
    for (const auto& a : result.admitted) {
        ids.push_back(waiting[a.request].deployment_id);
    }
    return ids;
}

}  // namespace

TEST_CASE("admission cycle: everything that fits starts, in order, on the best-fitting site", "[admission][cycle]") {
    const std::vector<WaitingRequest> waiting{Request("a", "g", 2), Request("b", "g", 4), Request("c", "g", 5)};
    CycleInput in;
    in.sites = {{8, 8}, {2, 2}};
    const auto result = Run(waiting, in);
    CHECK(AdmittedIds(waiting, result) == std::vector<std::string>{"a", "b"});
    CHECK(result.admitted[0].site == 1);  // 2 GPUs on the 2-GPU site, the 8-GPU one kept whole
    CHECK(result.admitted[1].site == 0);
    CHECK(result.head == std::size_t{2});  // c (5) fits neither the 4 left nor the 0
}

TEST_CASE(
    "admission cycle: a small request goes ahead of the head only if it ends before the head starts",
    "[admission][cycle]"
) {
    // One 8-GPU site, 4 free, 4 held until now + 2 h: the 8-GPU head starts in 2 h at the earliest.
    const std::vector<WaitingRequest> waiting{
        Request("head", "g", 8, hours(10)),
        Request("short", "h", 2, hours(1)),
        Request("long", "h", 2, hours(3)),
        Request("unknown", "h", 1)};
    CycleInput in;
    in.sites = {{8, 4}};
    in.running = {RunningGpus{0, 4, kNow + hours(2)}};
    const auto result = Run(waiting, in);
    CHECK(result.head == std::size_t{0});
    REQUIRE(result.head_start);
    CHECK(*result.head_start == kNow + hours(2));
    CHECK(AdmittedIds(waiting, result) == std::vector<std::string>{"short"});
    CHECK(result.admitted[0].backfilled);
}

TEST_CASE("admission cycle: what the head leaves free at its start may be used by anything", "[admission][cycle]") {
    // The head needs 6 of the 8 GPUs it will find in 2 h: 2 may go to requests of any length.
    const std::vector<WaitingRequest> waiting{
        Request("head", "g", 6, hours(10)),
        Request("long-1", "h", 1, hours(9)),
        Request("long-2", "h", 1),
        Request("long-3", "h", 1)};
    CycleInput in;
    in.sites = {{8, 4}};
    in.running = {RunningGpus{0, 4, kNow + hours(2)}};
    const auto result = Run(waiting, in);
    CHECK(AdmittedIds(waiting, result) == std::vector<std::string>{"long-1", "long-2"});
}

TEST_CASE(
    "admission cycle: without an estimate for the head, sites large enough for it are kept", "[admission][cycle]"
) {
    // The held GPUs have no known end: the head's start is unknown, so nothing may delay it on the
    // 8-GPU site; the 2-GPU site can never hold it and serves the small request.
    const std::vector<WaitingRequest> waiting{Request("head", "g", 8), Request("small", "h", 1, hours(1))};
    CycleInput in;
    in.sites = {{8, 4}, {2, 2}};
    in.running = {RunningGpus{0, 4, std::nullopt}};
    const auto result = Run(waiting, in);
    CHECK(result.head == std::size_t{0});
    CHECK_FALSE(result.head_start);
    REQUIRE(result.admitted.size() == 1);
    CHECK(result.admitted[0].site == 1);
}

TEST_CASE("admission cycle: a large request is not starved by a stream of small ones", "[admission][cycle]") {
    // Cycle after cycle, new 1-GPU requests of 4 h arrive; the 8-GPU head must start once the
    // running work (ending at +2 h) is gone, which it could not if each small one took a GPU.
    std::vector<RunningGpus> running{RunningGpus{0, 8, kNow + hours(2)}};
    double free = 0;
    for (int hour = 0; hour <= 2; ++hour) {
        const std::vector<WaitingRequest> waiting{
            Request("head", "g", 8, hours(5)), Request("small-" + std::to_string(hour), "h", 1, hours(4))};
        CycleInput in;
        in.waiting = &waiting;
        in.order = {0, 1};
        in.now = kNow + hours(hour);
        in.sites = {{8, free}};
        in.running = running;
        const auto result = AdmissionCycle(in);
        if (hour < 2) {
            CHECK(result.admitted.empty());
        } else {
            CHECK(AdmittedIds(waiting, result) == std::vector<std::string>{"head"});
        }
        free = hour + 1 == 2 ? 8 : 0;  // the running work ends at +2 h
    }
}

TEST_CASE(
    "admission cycle: cohort members borrow unused quota, the lender's new requests come first",
    "[admission][cycle][cohort]"
) {
    // a and b have 4 GPUs each in one cohort; b is idle, so a borrows b's 4.
    CycleInput in;
    in.sites = {{16, 16}};
    in.cohort = {{"a", CohortQuota{4}}, {"b", CohortQuota{4}}};
    const std::vector<WaitingRequest> first{Request("a-1", "a", 4), Request("a-2", "a", 4), Request("a-3", "a", 1)};
    auto result = Run(first, in);
    CHECK(AdmittedIds(first, result) == std::vector<std::string>{"a-1", "a-2"});
    CHECK_FALSE(result.admitted[0].borrowed);
    CHECK(result.admitted[1].borrowed);

    // Now b wants its quota back: its request goes before a's, even though a's comes first in the
    // order; a borrowed deployment that runs is not preempted (a holds 8, b gets nothing until it
    // ends).
    in.held = {{"a", 8}};
    in.sites = {{16, 8}};
    const std::vector<WaitingRequest> second{Request("a-4", "a", 1), Request("b-1", "b", 2)};
    result = Run(second, in);
    CHECK(result.admitted.empty());
    in.held = {{"a", 6}};  // 2 of a's borrowed GPUs came back
    result = Run(second, in);
    CHECK(AdmittedIds(second, result) == std::vector<std::string>{"b-1"});

    // b needs 3 of its own back but only 2 came back: a may not borrow the 2 meanwhile.
    const std::vector<WaitingRequest> third{Request("b-2", "b", 3), Request("a-5", "a", 1)};
    result = Run(third, in);
    CHECK(result.admitted.empty());
}

TEST_CASE("admission cycle: borrowing and lending limits", "[admission][cycle][cohort]") {
    CycleInput in;
    in.sites = {{32, 32}};
    in.cohort = {{"a", CohortQuota{4, 2}}, {"b", CohortQuota{8, CohortQuota::kUnlimited, 3}}};
    // a may borrow at most 2; b lends at most 3 of its 8.
    const std::vector<WaitingRequest> greedy{Request("a-1", "a", 4), Request("a-2", "a", 3), Request("a-3", "a", 2)};
    CHECK(AdmittedIds(greedy, Run(greedy, in)) == std::vector<std::string>{"a-1", "a-3"});
    in.cohort["a"].borrowing_limit = CohortQuota::kUnlimited;
    CHECK(AdmittedIds(greedy, Run(greedy, in)) == std::vector<std::string>{"a-1", "a-2"});  // 3 lent, a-3 over
    // b keeps 5 of its own whatever a borrowed.
    in.held = {{"a", 7}};
    const std::vector<WaitingRequest> own{Request("b-1", "b", 5), Request("b-2", "b", 1)};
    CHECK(AdmittedIds(own, Run(own, in)) == std::vector<std::string>{"b-1"});
}
