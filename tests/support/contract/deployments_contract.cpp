// The store contract (store_contract.hpp) on deployments: create and get, reported instances,
// owner scoping, pages and sort, status transitions, racing requests, self-healing.
#include "contract_helpers.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <thread>

namespace orch::test::contract {

void CreateGetAndResources(const Factory& make) {
    auto f = make();
    const std::string id =
        Add(*f,
            {.owner = kAlice,
             .group = "g1",
             .resources = 2,
             .timeout_mins = 30,
             .target_region = "RegionTwo",
             .max_wait_mins = 45});
    const auto d = MustGet(*f, id);
    CHECK(d.options.max_wait_mins == 45);
    CHECK(d.options.target_provider == "RECAS-BARI");
    CHECK(d.options.target_region == "RegionTwo");
    CHECK(d.options.per_provider_max_retries == 3);
    CHECK(d.status == DStatus::kCreateInProgress);
    CHECK(d.task == domain::Task::kNone);
    REQUIRE(d.owner);
    CHECK(d.owner->issuer == kAlice.issuer);
    CHECK(d.owner->subject == kAlice.subject);
    CHECK(d.owner->name == "alice.u");  // kept for IM's PAAS_DEP_USER / _EMAIL tags
    CHECK(d.owner->email == "alice@example.org");
    CHECK(d.user_group == "g1");
    CHECK(d.parameters == Json{{"count", 2}});
    CHECK(d.template_text == "tosca_definitions_version: tosca_simple_yaml_1_0");
    CHECK(d.options.timeout_mins == 30);
    CHECK(d.created_at == Base(*f));

    auto unknown = f->deployments().Get(SequentialUuid());
    REQUIRE(unknown);
    CHECK_FALSE(unknown->has_value());

    auto all = f->deployments().ListResources(id, std::nullopt, 0, 10, {});
    REQUIRE(all);
    CHECK(all->total == 2);
    auto derived = f->deployments().ListResources(id, std::string("tosca.nodes.Root"), 0, 10, {});
    REQUIRE(derived);
    CHECK(derived->total == 2);  // type_chain: a type matches its instances through derivation
    auto other = f->deployments().ListResources(id, std::string("tosca.nodes.Other"), 0, 10, {});
    REQUIRE(other);
    CHECK(other->total == 0);
    auto resource = f->deployments().GetResource(id, all->items[0].id);
    REQUIRE(resource);
    REQUIRE(resource->has_value());
    CHECK((*resource)->node_name == "app");
    auto missing = f->deployments().GetResource(id, SequentialUuid());
    REQUIRE(missing);
    CHECK_FALSE(missing->has_value());

    auto loaded = f->workflow().Load(id);
    REQUIRE(loaded);
    REQUIRE(loaded->has_value());
    const auto& st = **loaded;
    CHECK(st.deployment.id == id);
    CHECK(st.candidates.is_null());
    CHECK(st.handle.is_null());
    CHECK(st.attempts.empty());
    CHECK(st.resources.size() == 2);
    REQUIRE(st.deadline);
    CHECK(std::chrono::abs(*st.deadline - (d.created_at + minutes(30))) < seconds(1));
    auto none = f->workflow().Load(SequentialUuid());
    REQUIRE(none);
    CHECK_FALSE(none->has_value());

    CHECK(f->deployments().GetPlacement(id).value().is_null());
    CHECK(f->deployments().GetLog(id).value().empty());

    // Creating queues the deploy step, on the deployment's main line.
    auto jobs = f->workflow().Claim("w1", 10, minutes(1));
    REQUIRE(jobs);
    REQUIRE(jobs->size() == 1);
    CHECK(jobs->at(0).kind == workflow::JobKind::kDeploy);
    CHECK(jobs->at(0).deployment_id == id);
    CHECK(jobs->at(0).workflow);
    CHECK(jobs->at(0).attempts == 1);
}

void ReportedInstancesAdded(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {.owner = kAlice, .resources = 1});
    const auto job = ClaimFor(*f, id);
    workflow::Transition t;
    t.status = DStatus::kCreateComplete;
    // A Deployment of one node running three pods: index 0 is the node's row, 1 and 2 are new.
    for (int i = 0; i < 3; ++i) {
        t.resource_changes.push_back(
            {.node = "app", .index = i, .state = NodeState::kStarted, .physical_id = "pod-" + std::to_string(i)}
        );
    }
    t.resource_changes.push_back({.node = "absent", .index = 1, .state = NodeState::kStarted});  // no such node
    REQUIRE(f->workflow().Commit(job, "w1", t));
    auto page = f->deployments().ListResources(id, std::string("tosca.nodes.Root"), 0, 10, {});
    REQUIRE(page);
    REQUIRE(page->items.size() == 3);
    std::set<std::string> pods;
    for (const auto& r : page->items) {
        CHECK(r.node_name == "app");
        CHECK(r.node_type == "tosca.nodes.indigo.Container");
        CHECK(r.state == NodeState::kStarted);
        pods.insert(r.physical_id);
    }
    CHECK(pods == std::set<std::string>{"pod-0", "pod-1", "pod-2"});
}

void OwnerScoping(const Factory& make) {
    auto f = make();
    const auto alice = Add(*f, {.owner = kAlice, .offset = seconds(1)});
    const auto bob = Add(*f, {.owner = kBob, .offset = seconds(2)});
    const auto carol = Add(*f, {.owner = kCarol, .offset = seconds(3)});
    const auto unowned = Add(*f, {.offset = seconds(4)});
    using V = std::vector<std::string>;

    CHECK(Ids(MustList(*f, Query())) == V{unowned, carol, bob, alice});  // the local user sees all
    CHECK(Ids(MustList(*f, Query(Scope("https://iam-a/")))) == V{unowned, bob, alice});
    CHECK(Ids(MustList(*f, Query(Scope("https://iam-b/")))) == V{unowned, carol});
    CHECK(MustList(*f, Query(Scope("https://iam-b/"))).total == 2);

    auto own = Scope("https://iam-a/");
    own.OwnedBy(kAlice.issuer, kAlice.subject);
    CHECK(Ids(MustList(*f, Query(own))) == V{alice});  // narrowing drops unowned rows
    auto foreign = Scope("https://iam-b/");
    foreign.OwnedBy(kAlice.issuer, kAlice.subject);  // another issuer's owner: nothing, not alice
    const auto none = MustList(*f, Query(foreign));
    CHECK(none.items.empty());
    CHECK(none.total == 0);
    auto local_narrowed = Scope(std::nullopt);
    local_narrowed.OwnedBy(kCarol.issuer, kCarol.subject);
    CHECK(Ids(MustList(*f, Query(local_narrowed))) == V{carol});
}

void PaginationAndSort(const Factory& make) {
    auto f = make();
    std::vector<std::string> d;
    for (int i = 0; i < 5; ++i) {
        const DStatus status = i == 1   ? DStatus::kDeleteComplete
                               : i == 3 ? DStatus::kCreateFailed
                                        : DStatus::kCreateInProgress;
        d.push_back(Add(*f, {.offset = seconds(i), .group = i % 2 == 0 ? "a" : "b", .status = status}));
    }
    using V = std::vector<std::string>;
    auto q = Query();
    const auto first = MustList(*f, q);
    CHECK(Ids(first) == V{d[4], d[3], d[2], d[0]});  // newest first; DELETE_COMPLETE hidden
    CHECK(first.total == 4);

    q.size = 2;
    q.page = 1;
    const auto second = MustList(*f, q);
    CHECK(Ids(second) == V{d[2], d[0]});
    CHECK(second.total == 4);
    q.page = 5;
    const auto past = MustList(*f, q);
    CHECK(past.items.empty());
    CHECK(past.total == 4);  // the total is told past the last page too

    auto deleted = Query();
    deleted.include_deleted = true;
    CHECK(MustList(*f, deleted).total == 5);

    auto excluded = Query();
    excluded.excluded_status = {"CREATE_FAILED"};
    CHECK(Ids(MustList(*f, excluded)) == V{d[4], d[2], d[0]});

    auto ascending = Query();
    ascending.sort = {{"created_at", false}};
    CHECK(Ids(MustList(*f, ascending)) == V{d[0], d[2], d[3], d[4]});

    auto by_status = Query();
    by_status.sort = {{"status", false}, {"created_at", true}};
    CHECK(Ids(MustList(*f, by_status)) == V{d[3], d[4], d[2], d[0]});

    auto group = Query();
    group.user_group = "b";
    CHECK(Ids(MustList(*f, group)) == V{d[3]});

    // The second page holds what the first page's size left over.
    q.page = 1;
    const auto page_two = MustList(*f, q);
    REQUIRE(page_two.items.size() == 2);
    CHECK(page_two.items[0].id == d[2]);
    CHECK(page_two.total == 4);

    // Resources page the same way (created_at desc by default).
    const std::string many = Add(*f, {.resources = 3});
    auto page0 = f->deployments().ListResources(many, std::nullopt, 0, 2, {});
    REQUIRE(page0);
    CHECK(page0->total == 3);
    REQUIRE(page0->items.size() == 2);
    CHECK(page0->items[0].instance_index == 2);
    CHECK(page0->items[1].instance_index == 1);
    auto asc1 = f->deployments().ListResources(many, std::nullopt, 1, 2, {{"created_at", false}});
    REQUIRE(asc1);
    REQUIRE(asc1->items.size() == 1);
    CHECK(asc1->items[0].instance_index == 2);
}

void StatusTransitions(const Factory& make) {
    auto f = make();
    const std::string ghost = SequentialUuid();
    CHECK(CodeOf(f->deployments().BeginDelete(ghost, false)) == ErrorCode::kNotFound);
    CHECK(CodeOf(f->deployments().ResetToDeleteFailed(ghost)) == ErrorCode::kNotFound);
    CHECK(CodeOf(f->deployments().BeginUpdate({.id = ghost, .parameters = Json::object()})) == ErrorCode::kNotFound);
    CHECK(CodeOf(f->deployments().BeginAction(ghost, SequentialUuid(), "stop")) == ErrorCode::kNotFound);

    const std::string id = Add(*f, {.resources = 2, .target_region = "RegionOne"});
    const auto rids = ResourceIds(*f, id);
    const auto busy = f->deployments().BeginUpdate({.id = id, .parameters = Json::object()});
    CHECK(CodeOf(busy) == ErrorCode::kConflict);
    CHECK(busy.error().message == "Cannot update a deployment in CREATE_IN_PROGRESS state");
    CHECK(CodeOf(f->deployments().BeginAction(id, rids[0], "stop")) == ErrorCode::kConflict);

    Complete(*f, id);
    CHECK(MustGet(*f, id).status == DStatus::kCreateComplete);

    // Actions: STARTED → STOPPING and one queued step; a second action meanwhile is busy and
    // changes nothing.
    REQUIRE(f->deployments().BeginAction(id, rids[0], "stop"));
    CHECK(States(*f, id)[rids[0]] == NodeState::kStopping);
    CHECK(CodeOf(f->deployments().BeginAction(id, rids[1], "stop")) == ErrorCode::kConflict);
    CHECK(States(*f, id)[rids[1]] == NodeState::kStarted);
    CHECK(CodeOf(f->deployments().BeginAction(id, rids[0], "stop")) == ErrorCode::kInvalidArgument);
    CHECK(CodeOf(f->deployments().BeginAction(id, SequentialUuid(), "stop")) == ErrorCode::kInvalidArgument);
    {
        const auto job = ClaimFor(*f, id);
        CHECK(job.kind == workflow::JobKind::kAction);
        CHECK(job.payload.value("resource", "") == rids[0]);
        workflow::Transition t;
        t.resource_changes.push_back({.id = rids[0], .state = NodeState::kStopped});
        REQUIRE(f->workflow().Commit(job, "w1", t));
    }

    // Update: only from a completed state; instances not being created, removed or running are
    // reconfigured.
    REQUIRE(f->deployments().BeginUpdate({.id = id, .template_text = "t2", .parameters = Json{{"count", 3}}}));
    const auto updating = MustGet(*f, id);
    CHECK(updating.status == DStatus::kUpdateInProgress);
    CHECK(updating.template_text == "t2");
    CHECK(updating.options.target_region == "RegionOne");  // the create's target stays
    CHECK(States(*f, id)[rids[0]] == NodeState::kConfiguring);
    CHECK(States(*f, id)[rids[1]] == NodeState::kStarted);
    const auto again = f->deployments().BeginUpdate({.id = id, .parameters = Json::object()});
    CHECK(CodeOf(again) == ErrorCode::kConflict);
    CHECK(again.error().message == "Cannot update a deployment in UPDATE_IN_PROGRESS state");

    // Delete cancels the pending update step and queues the undeploy.
    REQUIRE(f->deployments().BeginDelete(id, true));
    CHECK(MustGet(*f, id).status == DStatus::kDeleteInProgress);
    for (const auto& [rid, state] : States(*f, id)) {
        CHECK(state == NodeState::kDeleting);
    }
    auto jobs = f->workflow().Claim("w1", 10, minutes(1));
    REQUIRE(jobs);
    REQUIRE(jobs->size() == 1);
    CHECK(jobs->at(0).kind == workflow::JobKind::kDelete);
    CHECK(jobs->at(0).payload.value("force", false));
    const auto twice = f->deployments().BeginDelete(id, false);
    CHECK(CodeOf(twice) == ErrorCode::kConflict);
    CHECK(twice.error().message == "Deployment already in DELETE_IN_PROGRESS state.");

    REQUIRE(f->deployments().ResetToDeleteFailed(id));
    CHECK(MustGet(*f, id).status == DStatus::kDeleteFailed);
    CHECK(CodeOf(f->deployments().ResetToDeleteFailed(id)) == ErrorCode::kConflict);
    REQUIRE(f->deployments().BeginDelete(id, false));  // a failed delete may be retried
    CHECK(MustGet(*f, id).status == DStatus::kDeleteInProgress);
}

namespace {

// Sends `request` from several threads at once: exactly one may succeed, the others get 409.
void RaceOneWins(const std::function<Status()>& request) {
    constexpr int kRacers = 6;
    std::atomic<int> ok{0};
    std::atomic<int> conflicts{0};
    std::atomic<bool> go{false};
    const auto racer = [&] {
        while (!go.load()) {
            std::this_thread::yield();
        }
        const Status s = request();
        if (s) {
            ++ok;
        } else if (s.error().code == ErrorCode::kConflict) {
            ++conflicts;
        }
    };
    std::vector<std::thread> threads;
    threads.reserve(kRacers);
    for (int i = 0; i < kRacers; ++i) {
        threads.emplace_back(racer);
    }
    go = true;
    for (auto& t : threads) {
        t.join();
    }
    CHECK(ok.load() == 1);
    CHECK(conflicts.load() == kRacers - 1);
}

}  // namespace

void ConcurrentRequestsOneWins(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {.resources = 1});
    Complete(*f, id);
    RaceOneWins([&] {
        return f->deployments().BeginUpdate({.id = id, .template_text = "t2", .parameters = Json::object()});
    });
    CHECK(MustGet(*f, id).status == DStatus::kUpdateInProgress);
    RaceOneWins([&] { return f->deployments().BeginDelete(id, false); });
    CHECK(MustGet(*f, id).status == DStatus::kDeleteInProgress);
    auto jobs = f->workflow().Claim("w1", 10, minutes(1));
    REQUIRE(jobs);
    CHECK(jobs->size() == 1);  // one delete queued, the update cancelled
}

void SelfHealing(const Factory& make) {
    auto f = make();
    const std::string said = Add(*f, {.self_healing = true});
    const std::string silent = Add(*f, {});
    CHECK(MustGet(*f, said).options.self_healing == std::optional<bool>(true));
    CHECK_FALSE(MustGet(*f, silent).options.self_healing.has_value());

    // A redeploy's commit sets a new deadline (timeoutMins counted again).
    const auto deadline = Base(*f) + minutes(90);
    {
        const auto job = ClaimFor(*f, said);
        workflow::Transition t;
        t.status = DStatus::kCreateComplete;
        t.deadline = deadline;
        t.side_jobs.push_back({workflow::JobKind::kHealth, Json::object(), minutes(1), false});
        REQUIRE(f->workflow().Commit(job, "w1", t));
    }
    // The health watch it queued is not a backlog: only the other deployment's deploy job waits.
    CHECK(f->workflow().QueueDepth().value() == std::make_pair(std::int64_t{1}, std::int64_t{0}));
    const auto st = f->workflow().Load(said).value().value();
    REQUIRE(st.deadline);
    CHECK(std::chrono::abs(*st.deadline - deadline) < seconds(1));

    // An update that does not say keeps the stored choice; one that says replaces it.
    REQUIRE(f->deployments().BeginUpdate({.id = said, .parameters = Json::object()}));
    CHECK(MustGet(*f, said).options.self_healing == std::optional<bool>(true));
    Complete(*f, silent);
    store::UpdateRequest off{.id = silent, .parameters = Json::object()};
    off.options.self_healing = false;
    REQUIRE(f->deployments().BeginUpdate(off));
    CHECK(MustGet(*f, silent).options.self_healing == std::optional<bool>(false));
}

}  // namespace orch::test::contract
