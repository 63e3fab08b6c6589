// The admission order among waiting deployments (workflow/fair_share.hpp, docs/admission.md).
#include <orchestrator/workflow/fair_share.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using orch::workflow::DecayedUsage;
using orch::workflow::DominantShare;
using orch::workflow::FairShareOrder;
using orch::workflow::GroupAccount;
using orch::workflow::ShareVector;
using orch::workflow::WaitingRequest;
using std::chrono::hours;
using std::chrono::minutes;

namespace {

using Accounts = std::map<std::string, GroupAccount, std::less<>>;
const auto kNow = std::chrono::system_clock::time_point{} + hours(1000);
const ShareVector kCapacity{64, 1024, 1024 * 1024};

WaitingRequest Request(const std::string& id, const std::string& group, double gpus, minutes age = minutes(1)) {
    WaitingRequest w;
    w.deployment_id = id;
    w.group = group;
    w.queued_at = kNow - age;
    w.demand.gpus = gpus;
    return w;
}

// The groups of the first `n` requests in admission order, counted.
std::map<std::string, int> GroupsOfFirst(const std::vector<WaitingRequest>& waiting, const Accounts& accounts, int n) {
    const auto order = FairShareOrder(waiting, accounts, kCapacity, kNow);
    REQUIRE(order.size() == waiting.size());
    std::map<std::string, int> counts;
    for (int i = 0; i < n; ++i) {
        ++counts[waiting[order[static_cast<std::size_t>(i)]].group];
    }
    return counts;
}

std::vector<std::string> Ids(const std::vector<WaitingRequest>& waiting, const std::vector<std::size_t>& order) {
    std::vector<std::string> ids;
    for (const auto i : order) {
        ids.push_back(waiting[i].deployment_id);
    }
    return ids;
}

}  // namespace

TEST_CASE("fair share: weights 2:1:1 give 50/25/25 of the admissions", "[admission][fair_share]") {
    std::vector<WaitingRequest> waiting;
    for (int i = 0; i < 40; ++i) {
        for (const char* g : {"a", "b", "c"}) {
            waiting.push_back(Request(std::string(g) + std::to_string(i), g, 1));
        }
    }
    const Accounts accounts{{"a", {2, {}}}, {"b", {1, {}}}, {"c", {1, {}}}};
    const auto first = GroupsOfFirst(waiting, accounts, 64);
    CHECK(first.at("a") == 32);
    CHECK(first.at("b") == 16);
    CHECK(first.at("c") == 16);
}

TEST_CASE("fair share: past usage (decayed) puts a group behind", "[admission][fair_share]") {
    const std::vector<WaitingRequest> waiting{
        Request("heavy-1", "heavy", 1, minutes(30)), Request("light-1", "light", 1)};
    Accounts accounts{{"heavy", {1, {32, 0, 0}}}, {"light", {1, {1, 0, 0}}}};
    CHECK(
        Ids(waiting, FairShareOrder(waiting, accounts, kCapacity, kNow)) ==
        std::vector<std::string>{"light-1", "heavy-1"}
    );
    // After many half-lives the heavy group's history is forgotten: it is now below light's.
    accounts["heavy"].usage = DecayedUsage({32, 0, 0}, hours(24 * 30), hours(24));
    CHECK(accounts["heavy"].usage.gpus < 1e-6);
    CHECK(
        Ids(waiting, FairShareOrder(waiting, accounts, kCapacity, kNow)) ==
        std::vector<std::string>{"heavy-1", "light-1"}
    );
}

TEST_CASE("fair share: a large request weighs its group's share", "[admission][fair_share]") {
    // Group big's first request takes 16 GPUs: small's three 1-GPU requests all go before its next.
    const std::vector<WaitingRequest> waiting{
        Request("big-1", "big", 16, minutes(9)),
        Request("big-2", "big", 16, minutes(8)),
        Request("small-1", "small", 1, minutes(3)),
        Request("small-2", "small", 1, minutes(2)),
        Request("small-3", "small", 1, minutes(1))};
    CHECK(
        Ids(waiting, FairShareOrder(waiting, {}, kCapacity, kNow)) ==
        std::vector<std::string>{"big-1", "small-1", "small-2", "small-3", "big-2"}
    );
}

TEST_CASE("fair share: within a group, priority then age then id", "[admission][fair_share]") {
    auto low_old = Request("x-low-old", "g", 1, minutes(50));
    auto high_new = Request("x-high-new", "g", 1, minutes(1));
    high_new.priority = 5;
    auto same_b = Request("x-b", "g", 1, minutes(10));
    auto same_a = Request("x-a", "g", 1, minutes(10));
    const std::vector<WaitingRequest> waiting{low_old, same_b, high_new, same_a};
    CHECK(
        Ids(waiting, FairShareOrder(waiting, {}, kCapacity, kNow)) ==
        std::vector<std::string>{"x-high-new", "x-low-old", "x-a", "x-b"}
    );
}

TEST_CASE("fair share: a request waiting past the starvation age goes first", "[admission][fair_share]") {
    // Group hog has used the whole cluster: by share it would wait behind every other group.
    const std::vector<WaitingRequest> waiting{
        Request("other-1", "other", 1, minutes(5)),
        Request("hog-starving", "hog", 8, hours(7)),
        Request("hog-young", "hog", 1, minutes(1)),
        Request("other-starving", "other", 1, hours(6) + minutes(30))};
    const Accounts accounts{{"hog", {1, {64, 0, 0}}}};
    CHECK(
        Ids(waiting, FairShareOrder(waiting, accounts, kCapacity, kNow)) ==
        std::vector<std::string>{"hog-starving", "other-starving", "other-1", "hog-young"}
    );
    orch::workflow::FairShareOptions off;
    off.starvation_age = std::chrono::milliseconds(0);
    CHECK(Ids(waiting, FairShareOrder(waiting, accounts, kCapacity, kNow, off)).front() == "other-starving");
}

TEST_CASE("fair share: dominant share is the largest fraction over the weight", "[admission][fair_share]") {
    CHECK(DominantShare({16, 64, 0}, kCapacity, 1) == Approx(0.25));          // GPUs dominate
    CHECK(DominantShare({1, 512, 0}, kCapacity, 2) == Approx(0.25));          // CPUs dominate, weight 2
    CHECK(DominantShare({5, 0, 0}, ShareVector{0, 10, 10}, 1) == Approx(0));  // no GPUs to share
    CHECK(DecayedUsage({8, 4, 2}, hours(24), hours(24)).gpus == Approx(4));
    CHECK(DecayedUsage({8, 4, 2}, hours(48), hours(24)).cpus == Approx(1));
}
