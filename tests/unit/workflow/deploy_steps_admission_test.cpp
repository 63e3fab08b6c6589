// The deploy steps under admission (deploy_steps_test.cpp has the steps themselves): quotas that
// queue a deployment, GPU classes, waits that end, the fair-share order and what is reported.
#include "deploy_steps_rig.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::connectors::FailureKind;
using orch::domain::Status;
using orch::test::deploy_steps::Rig;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

}  // namespace

TEST_CASE(
    "a deployment over the group's free quota waits queued, the delete of the holder admits it", "[workflow][admission]"
) {
    Rig rig;
    orch::placement::GroupQuota quota;
    quota.group.instances = 1;
    rig.placer.SetQuota(quota);
    const std::string first = rig.Create(Json::object());
    const std::string second = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", first) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 0);
    CHECK(rig.Get(second).status == Status::kCreateInProgress);
    CHECK(rig.Get(second).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    rig.api.clock.Advance(seconds(5));  // workflow.admission_retry: still held by the first
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 0);

    REQUIRE(rig.api.Call("DELETE", "/deployments/" + first).status == 204);
    for (int i = 0; i < 10 && rig.connector.CreateCalls("SITE-A", second) == 0; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.Get(first).status == Status::kDeleteComplete);
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 1);
}

TEST_CASE(
    "a GPU class quota counts the GPUs of that class only, aliases included, and the queue names the class",
    "[workflow][admission][gpu_class]"
) {
    Rig rig;
    orch::placement::GroupQuota quota;
    quota.group.gpu_classes.push_back({{"V100", {"Tesla V100-PCIE-32GB"}, "", std::nullopt}, 2});
    rig.placer.SetQuota(quota);
    const auto body = [](const std::string& model, int count) {
        return Json{{"parameters", {{"gpu_model", model}, {"count", count}}}};
    };
    // 2 GPUs of the class by its alias's name, 2 of another class (not limited), then one by the
    // class's name: over the class limit. (Created in that order: the queue is strict, a GPU
    // request waiting first holds back later GPU requests whatever their class.)
    const std::string alias = rig.Create(body("Tesla V100-PCIE-32GB", 2));
    rig.RunDue();
    const std::string other = rig.Create(body("T4", 2));
    rig.RunDue();
    const std::string named = rig.Create(body("V100", 1));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", alias) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", other) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", named) == 0);
    CHECK(rig.Get(named).status == Status::kCreateInProgress);
    CHECK(rig.Get(named).status_reason == "queued: position 1 in group users, waiting for 1 × V100");

    REQUIRE(rig.api.Call("DELETE", "/deployments/" + alias).status == 204);
    for (int i = 0; i < 10 && rig.connector.CreateCalls("SITE-A", named) == 0; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.connector.CreateCalls("SITE-A", named) == 1);
}

TEST_CASE(
    "a request that may wait stays queued until admission_max_wait, then fails with why", "[workflow][admission]"
) {
    Rig rig;
    rig.services.options.admission_max_wait = minutes(1);
    rig.placer.SetFull(true);
    const std::string id = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.Get(id).status == Status::kCreateInProgress);
    CHECK(rig.Get(id).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    for (int i = 0; i < 11; ++i) {  // 55 s
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.Get(id).status == Status::kCreateInProgress);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    const auto failed = rig.Get(id);
    CHECK(failed.status == Status::kCreateFailed);
    CHECK_THAT(
        failed.status_reason,
        Catch::StartsWith("queued: position 1 in group users, waiting for 1 × GPU; not admitted within 60 s")
    );

    // Freed capacity before the limit: the waiting request goes on.
    rig.services.options.admission_max_wait = minutes(0);
    const std::string next = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.Get(next).status_reason.rfind("queued:", 0) == 0);
    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", next) == 1);
}

TEST_CASE(
    "a create's maxWaitMins ends its wait sooner, never later than the operator's admission_max_wait",
    "[workflow][admission]"
) {
    Rig rig;
    rig.services.options.admission_max_wait = minutes(2);
    rig.placer.SetFull(true);
    const std::string soon = rig.Create(Json{{"maxWaitMins", 1}});
    const std::string late = rig.Create(Json{{"maxWaitMins", 10}});  // bounded by the operator's 2
    rig.RunDue();
    const auto waited = [&](const std::string& id) {
        for (int i = 0; i < 40 && rig.Get(id).status == Status::kCreateInProgress; ++i) {
            rig.api.clock.Advance(seconds(5));
            rig.RunDue();
        }
        return rig.Get(id);
    };
    const auto first = waited(soon);
    CHECK(first.status == Status::kCreateFailed);
    CHECK_THAT(first.status_reason, Catch::Contains("; not admitted within 60 s"));
    const auto second = waited(late);
    CHECK(second.status == Status::kCreateFailed);
    CHECK_THAT(second.status_reason, Catch::Contains("; not admitted within 120 s"));
    CHECK(rig.api.Call("POST", "/deployments", Json{{"template", "x"}, {"maxWaitMins", 0}}.dump()).status == 400);
}

TEST_CASE(
    "freed capacity admits the waiting request first in the fair-share order, not the oldest job",
    "[workflow][admission]"
) {
    Rig rig;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;  // high enough never to bind: the counters record what each group holds
    rig.placer.SetQuota(quota);
    const std::string held = rig.Create(Json::object(), "users");
    for (int i = 0; i < 10 && rig.Get(held).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(held).status == Status::kCreateComplete);  // "users" holds 1 GPU, "physics" none

    rig.placer.SetFull(true);
    const std::string users = rig.Create(Json::object(), "users");  // older: first in job order
    rig.api.clock.Advance(seconds(1));
    const std::string physics = rig.Create(Json::object(), "physics");
    rig.RunDue();
    CHECK(rig.Get(users).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    CHECK(rig.Get(physics).status_reason == "queued: position 1 in group physics, waiting for 1 × GPU");
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    // Both in the queue now: the group holding less goes first.
    CHECK(rig.Get(users).status_reason == "queued: position 2 in group users, waiting for 1 × GPU");

    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", physics) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", users) == 0);  // it keeps waiting behind physics
    CHECK(rig.Get(users).status == Status::kCreateInProgress);
    CHECK(rig.Get(users).status_reason == "queued: position 2 in group users, waiting for 1 × GPU");

    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", users) == 1);  // its turn once physics is admitted
}

// Records what admission reports to its observer (what the queue metrics show).
struct RecordingAdmission final : orch::workflow::AdmissionObserver {
    std::map<std::string, orch::workflow::GroupQueueFigures> last;  // the latest computation, by group
    std::vector<std::pair<std::string, double>> admitted;           // group, wait in seconds

    void QueueComputed(const std::string&, const std::vector<orch::workflow::GroupQueueFigures>& groups) override {
        last.clear();
        for (const auto& g : groups) {
            last[g.group] = g;
        }
    }
    void Admitted(const std::string&, const std::string& group, double wait_seconds) override {
        admitted.emplace_back(group, wait_seconds);
    }
};

TEST_CASE("admission reports each group's queue and share, and each admission's wait", "[workflow][admission]") {
    Rig rig;
    RecordingAdmission seen;
    rig.services.options.admission_observer = &seen;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    rig.placer.SetQuota(quota);
    const std::string held = rig.Create(Json::object(), "users");
    for (int i = 0; i < 10 && rig.Get(held).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(held).status == Status::kCreateComplete);
    REQUIRE(seen.admitted.size() == 1);
    CHECK(seen.admitted[0].first == "users");

    rig.placer.SetFull(true);
    rig.Create(Json::object(), "users");
    rig.api.clock.Advance(seconds(1));
    const std::string physics = rig.Create(Json::object(), "physics");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    // Both wait; users holds a GPU, physics none: users' share is the larger.
    REQUIRE(seen.last.count("users") == 1);
    REQUIRE(seen.last.count("physics") == 1);
    CHECK(seen.last.at("users").waiting == 1);
    CHECK(seen.last.at("physics").waiting == 1);
    CHECK(seen.last.at("users").share > seen.last.at("physics").share);

    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    REQUIRE(rig.connector.CreateCalls("SITE-A", physics) == 1);
    REQUIRE(seen.admitted.size() == 2);
    CHECK(seen.admitted[1].first == "physics");
    CHECK(seen.admitted[1].second == 10.0);  // created, then 5 s + 5 s of waiting on the clock
}

TEST_CASE("the operator's group weights order the queue (workflow.admission_weights)", "[workflow][admission]") {
    // users and physics hold one GPU each: equal shares, so by name physics would go first; with
    // weight 3 users' share is a third of physics' and users goes first.
    Rig rig;
    rig.services.options.admission_weights.groups = {{"users", 3}};
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    rig.placer.SetQuota(quota);
    for (const char* group : {"users", "physics"}) {
        const std::string held = rig.Create(Json::object(), group);
        for (int i = 0; i < 10 && rig.Get(held).status != Status::kCreateComplete; ++i) {
            rig.api.clock.Advance(seconds(1));
            rig.RunDue();
        }
        REQUIRE(rig.Get(held).status == Status::kCreateComplete);
    }
    rig.placer.SetFull(true);
    const std::string physics = rig.Create(Json::object(), "physics");  // older
    rig.api.clock.Advance(seconds(1));
    const std::string users = rig.Create(Json::object(), "users");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.Get(users).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    CHECK(rig.Get(physics).status_reason == "queued: position 2 in group physics, waiting for 1 × GPU");
    rig.placer.SetFull(false);
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", users) == 1);
    CHECK(rig.connector.CreateCalls("SITE-A", physics) == 0);
}

TEST_CASE("a group's past GPU-hours put it behind in the queue (the fair-share history)", "[workflow][admission]") {
    // physics ran a GPU deployment for 10 h and deleted it; users never ran one. Both hold
    // nothing now: by name physics would go first; its history puts users first.
    Rig rig;
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    rig.placer.SetQuota(quota);
    const std::string past = rig.Create(Json::object(), "physics");
    for (int i = 0; i < 10 && rig.Get(past).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(past).status == Status::kCreateComplete);
    rig.api.clock.Advance(hours(10));
    REQUIRE(rig.api.Call("DELETE", "/deployments/" + past).status == 204);
    for (int i = 0; i < 20 && rig.Get(past).status != Status::kDeleteComplete; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    REQUIRE(rig.Get(past).status == Status::kDeleteComplete);

    rig.placer.SetFull(true);
    const std::string physics = rig.Create(Json::object(), "physics");  // older
    rig.api.clock.Advance(seconds(1));
    const std::string users = rig.Create(Json::object(), "users");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    CHECK(rig.Get(users).status_reason == "queued: position 1 in group users, waiting for 1 × GPU");
    CHECK(rig.Get(physics).status_reason == "queued: position 2 in group physics, waiting for 1 × GPU");
}

namespace {

// What group `users` holds (reserved + in use) on one service's SLA counter of instances.
double OnService(Rig& rig, const std::string& service_id) {
    const auto counters = rig.api.stores.workflow.QuotaCounters(rig.api.principal().issuer, {"users"}).value();
    double held = 0;
    for (const auto& c : counters) {
        if (c.key.scope == orch::workflow::QuotaScope::kGroupOnService && c.key.service_id == service_id &&
            c.key.resource == orch::workflow::QuotaResource::kInstances) {
            held += c.reserved + c.in_use;
        }
    }
    return held;
}

}  // namespace

TEST_CASE(
    "a move to the next site gives the failed site's SLA claims back and reserves the next one's first",
    "[workflow][admission]"
) {
    Rig rig;
    orch::placement::GroupQuota one;
    one.group.instances = 1;
    rig.placer.SetSlaQuota("SITE-A", one);
    rig.placer.SetSlaQuota("SITE-B", one);
    rig.connector.SetBehaviour("SITE-A", {.create_fails = FailureKind::kTryAnotherSite});
    const std::string first = rig.Create(Json::object());
    rig.RunDue();
    REQUIRE(rig.connector.CreateCalls("SITE-B", first) == 1);
    CHECK(OnService(rig, "SITE-A-marathon") == 0);  // given back with the failed attempt
    CHECK(OnService(rig, "SITE-B-marathon") == 1);

    // SITE-A's SLA is free again: a second deployment is admitted there, fails, and waits for
    // SITE-B's SLA (held by the first) without creating anything there.
    const std::string second = rig.Create(Json::object());
    rig.RunDue();
    CHECK(rig.connector.CreateCalls("SITE-A", second) == 1);
    CHECK(rig.connector.CreateCalls("SITE-B", second) == 0);
    CHECK(rig.Get(second).status == Status::kCreateInProgress);
    CHECK(rig.Get(second).status_reason == "queued: waiting for the SLA quota of group users on SITE-B, for 1 × GPU");
    CHECK(OnService(rig, "SITE-A-marathon") == 0);
    CHECK(OnService(rig, "SITE-B-marathon") == 1);

    // The first one's delete gives SITE-B's SLA back: the second reserves it and is created there.
    REQUIRE(rig.api.Call("DELETE", "/deployments/" + first).status == 204);
    for (int i = 0; i < 10 && rig.connector.CreateCalls("SITE-B", second) == 0; ++i) {
        rig.api.clock.Advance(seconds(5));
        rig.RunDue();
    }
    CHECK(rig.connector.CreateCalls("SITE-B", second) == 1);
    CHECK(OnService(rig, "SITE-B-marathon") == 1);
    CHECK(OnService(rig, "SITE-A-marathon") == 0);
}

namespace {

// Creates a deployment of `count` GPUs of `model` for `group` and runs it to CREATE_COMPLETE.
std::string Running(Rig& rig, const std::string& group, const std::string& model, int count) {
    const std::string id = rig.Create(Json{{"parameters", {{"gpu_model", model}, {"count", count}}}}, group);
    for (int i = 0; i < 10 && rig.Get(id).status != Status::kCreateComplete; ++i) {
        rig.api.clock.Advance(seconds(1));
        rig.RunDue();
    }
    REQUIRE(rig.Get(id).status == Status::kCreateComplete);
    return id;
}

// The group quotas of the class-weight tests: A100 is a class of the group's quota (so its GPUs
// are counted apart), T4 is not.
void A100Quota(Rig& rig) {
    rig.api.principal().groups = std::vector<std::string>{"users", "physics"};
    orch::placement::GroupQuota quota;
    quota.group.gpus = 100;
    quota.group.gpu_classes.push_back({{"A100", {}, "", std::nullopt}, 100});
    rig.placer.SetQuota(quota);
}

// Both groups ask for one more GPU while the site is full; the queue positions (physics older).
std::pair<std::string, std::string> Positions(Rig& rig) {
    rig.placer.SetFull(true);
    const std::string physics = rig.Create(Json::object(), "physics");
    rig.api.clock.Advance(seconds(1));
    const std::string users = rig.Create(Json::object(), "users");
    rig.RunDue();
    rig.api.clock.Advance(seconds(5));
    rig.RunDue();
    return {rig.Get(users).status_reason, rig.Get(physics).status_reason};
}

}  // namespace

TEST_CASE("GPUs held now count by their class's weight (workflow.admission_gpu_weights)", "[workflow][admission]") {
    // users holds 1 A100, physics 2 T4: by GPU count users is behind less and goes first; an A100
    // weighing 4 makes users' usage 4 against physics' 2, so physics goes first.
    Rig rig;
    A100Quota(rig);
    rig.services.options.admission_weights.gpu_classes = {{"A100", 4}};
    Running(rig, "users", "A100", 1);
    Running(rig, "physics", "T4", 2);
    const auto [users, physics] = Positions(rig);
    CHECK(physics == "queued: position 1 in group physics, waiting for 1 × GPU");
    CHECK(users == "queued: position 2 in group users, waiting for 1 × GPU");
}

TEST_CASE("past GPU-hours count by their class's weight (the fair-share history)", "[workflow][admission]") {
    // users ran 1 A100 for 10 h, physics 2 T4 for 10 h; both hold nothing now. Unweighted users
    // has 10 GPU-hours against 20 and goes first; an A100 weighing 4 makes it 40 against 20.
    Rig rig;
    A100Quota(rig);
    rig.services.options.admission_weights.gpu_classes = {{"A100", 4}};
    const std::string a100 = Running(rig, "users", "A100", 1);
    const std::string t4 = Running(rig, "physics", "T4", 2);
    rig.api.clock.Advance(hours(10));
    for (const auto& id : {a100, t4}) {
        REQUIRE(rig.api.Call("DELETE", "/deployments/" + id).status == 204);
        for (int i = 0; i < 20 && rig.Get(id).status != Status::kDeleteComplete; ++i) {
            rig.api.clock.Advance(seconds(5));
            rig.RunDue();
        }
        REQUIRE(rig.Get(id).status == Status::kDeleteComplete);
    }
    const auto [users, physics] = Positions(rig);
    CHECK(physics == "queued: position 1 in group physics, waiting for 1 × GPU");
    CHECK(users == "queued: position 2 in group users, waiting for 1 × GPU");
}
