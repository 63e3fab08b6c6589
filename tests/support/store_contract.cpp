// The store contract (store_contract.hpp): what the API and the workflow rely on from
// DeploymentStore and WorkflowStore, checked the same way on every implementation.
#include "test_support/store_contract.hpp"

#include <common/uuid.hpp>
#include <orchestrator/auth/principal.hpp>
#include <orchestrator/workflow/admission_queue.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

namespace orch::test::contract {
namespace {

using domain::NodeState;
using DStatus = domain::Status;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const domain::Owner kAlice{"https://iam-a/", "alice"};
const domain::Owner kBob{"https://iam-a/", "bob"};
const domain::Owner kCarol{"https://iam-b/", "carol"};

// What a caller of `issuer` sees (nullopt: the local user of auth-disabled mode).
auth::OwnerFilter Scope(const std::optional<std::string>& issuer) {
    auth::Principal caller;
    caller.local = !issuer;
    caller.issuer = issuer.value_or("");
    return auth::OwnerFilter::VisibleTo(caller);
}

store::ListQuery Query(auth::OwnerFilter owner = Scope(std::nullopt)) {
    return store::ListQuery{.owner = std::move(owner)};
}

// Whole seconds (both stores keep at least that precision), fixed once per fixture.
domain::TimePoint Base(StoreFixture& f) {
    if (!f.base_time) {
        f.base_time = std::chrono::floor<seconds>(f.Now()) - minutes(10);
    }
    return *f.base_time;
}

struct Spec {
    std::optional<domain::Owner> owner;
    seconds offset{0};
    std::string group;
    DStatus status = DStatus::kCreateInProgress;
    int resources = 0;
    std::optional<int> timeout_mins;
    std::string callback;
    std::string target_region;
    std::optional<bool> self_healing;
    std::optional<int> max_wait_mins;
};

std::string Add(StoreFixture& f, const Spec& spec) {
    store::NewDeployment n;
    auto& d = n.deployment;
    d.id = SequentialUuid();
    d.created_at = Base(f) + spec.offset;
    d.updated_at = d.created_at;
    d.status = spec.status;
    d.owner = spec.owner;
    d.user_group = spec.group;
    d.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    d.parameters = Json{{"count", 2}};
    d.options.timeout_mins = spec.timeout_mins;
    d.callback = spec.callback;
    d.options.target_region = spec.target_region;
    d.options.max_wait_mins = spec.max_wait_mins;
    d.options.target_provider = spec.target_region.empty() ? "" : "RECAS-BARI";
    d.options.self_healing = spec.self_healing;
    d.options.per_provider_max_retries = spec.target_region.empty() ? std::nullopt : std::optional<int>(3);
    d.kind = tosca::DeploymentKind::kMarathon;
    for (int i = 0; i < spec.resources; ++i) {
        domain::Resource r;
        r.id = SequentialUuid();
        r.deployment_id = d.id;
        r.created_at = d.created_at + seconds(i);
        r.updated_at = r.created_at;
        r.node_name = "app";
        r.node_type = "tosca.nodes.indigo.Container";
        r.type_chain = {"tosca.nodes.indigo.Container", "tosca.nodes.Root"};
        r.instance_index = i;
        n.resources.push_back(std::move(r));
    }
    REQUIRE(f.deployments().Create(n));
    return d.id;
}

std::vector<std::string> Ids(const store::Page<domain::Deployment>& page) {
    std::vector<std::string> ids;
    for (const auto& d : page.items) {
        ids.push_back(d.id);
    }
    return ids;
}

store::Page<domain::Deployment> MustList(StoreFixture& f, const store::ListQuery& q) {
    auto page = f.deployments().List(q);
    REQUIRE(page);
    return *page;
}

domain::Deployment MustGet(StoreFixture& f, const std::string& id) {
    auto got = f.deployments().Get(id);
    REQUIRE(got);
    REQUIRE(got->has_value());
    return **got;
}

ErrorCode CodeOf(const Status& s) {
    REQUIRE_FALSE(s);
    return s.error().code;
}

// Claims the due job of `id` for `owner`; any other due job is given back at once.
workflow::Job ClaimFor(StoreFixture& f, const std::string& id, const std::string& owner = "w1") {
    auto jobs = f.workflow().Claim(owner, 100, minutes(1));
    REQUIRE(jobs);
    std::optional<workflow::Job> mine;
    bool given_back = true;
    for (const auto& j : *jobs) {
        if (j.deployment_id == id && !mine) {
            mine = j;
        } else {
            given_back = given_back && f.workflow().Retry(j, owner, milliseconds(0), "not this test's");
        }
    }
    REQUIRE(given_back);
    REQUIRE(mine);
    return *mine;
}

// Runs the deploy step's outcome: CREATE_COMPLETE, every resource STARTED.
void Complete(StoreFixture& f, const std::string& id) {
    const auto job = ClaimFor(f, id);
    workflow::Transition t;
    t.status = DStatus::kCreateComplete;
    t.resources_state = NodeState::kStarted;
    REQUIRE(f.workflow().Commit(job, "w1", t));
}

std::map<std::string, NodeState> States(StoreFixture& f, const std::string& id) {
    auto page = f.deployments().ListResources(id, std::nullopt, 0, 100, {});
    REQUIRE(page);
    std::map<std::string, NodeState> out;
    for (const auto& r : page->items) {
        out[r.id] = r.state;
    }
    return out;
}

std::vector<std::string> ResourceIds(StoreFixture& f, const std::string& id) {
    std::vector<std::string> out;
    for (const auto& [rid, state] : States(f, id)) {
        out.push_back(rid);
    }
    return out;
}

}  // namespace

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

namespace {

domain::Event MakeEvent(StoreFixture& f, domain::EventType type, Json data) {
    domain::Event e;
    e.type = type;
    e.time = std::chrono::floor<milliseconds>(f.Now());
    e.data = std::move(data);
    return e;
}

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

namespace orch::test::contract {
namespace {

// A place step's commit that reserves `gpus` GPUs of group g (limit `limit`) for Alice.
workflow::Transition Admit(double gpus, double limit, milliseconds retry = minutes(10)) {
    workflow::Transition t;
    t.status_reason = "placed";
    t.candidate_index = 0;
    t.next = workflow::NextJob{workflow::JobKind::kPoll, Json::object(), milliseconds(0), true};
    workflow::Admission admit;
    workflow::CounterKey key{workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus};
    admit.claims.push_back({key, gpus, limit});
    key.scope = workflow::QuotaScope::kUser;
    key.subject = kAlice.subject;
    admit.claims.push_back({key, gpus, limit + 10});
    admit.queued_reason = "queued: waiting in group g for " + std::to_string(static_cast<int>(gpus)) + " × GPU";
    admit.retry_delay = retry;
    t.admit = admit;
    return t;
}

// (reserved, in use) of group g's GPU counter, as Alice's issuer sees it.
std::pair<double, double> GroupGpus(StoreFixture& f) {
    const auto counters = f.workflow().QuotaCounters(kAlice.issuer, {"g"});
    REQUIRE(counters);
    for (const auto& c : *counters) {
        if (c.key.scope == workflow::QuotaScope::kGroup && c.key.resource == workflow::QuotaResource::kGpus) {
            return {c.reserved, c.in_use};
        }
    }
    return {0, 0};
}

workflow::Transition WithStatus(DStatus status) {
    workflow::Transition t;
    t.status = status;
    return t;
}

}  // namespace

void AdmissionAccounting(const Factory& make) {
    auto f = make();
    const std::string first = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string second = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, first), "w1", Admit(2, 3)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));
    CHECK(MustGet(*f, first).status_reason == "placed");

    // Over the limit: nothing of the transition is written, the job waits with the queued reason.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, second), "w1", Admit(2, 3)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));
    CHECK(MustGet(*f, second).status == DStatus::kCreateInProgress);
    CHECK(MustGet(*f, second).status_reason == "queued: waiting in group g for 2 × GPU");
    CHECK(f->workflow().Claim("w1", 10, minutes(1)).value().size() == 1);  // first's poll; second waits
    CHECK(f->workflow().QueueDepth().value() == std::make_pair(std::int64_t{1}, std::int64_t{1}));

    // Success turns the reservation into usage; failure gives everything back.
    const auto user = [&] {
        // Named, so the loop does not run over a reference into a destroyed temporary Result.
        const auto counters = f->workflow().QuotaCounters(kAlice.issuer, {});
        for (const auto& c : counters.value()) {
            if (c.key.scope == workflow::QuotaScope::kUser) {
                return c;
            }
        }
        return workflow::QuotaCounter{};
    };
    CHECK(user().key.subject == kAlice.subject);
    CHECK(user().reserved == 2);
    const std::string third = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, third), "w1", Admit(1, 3)));
    CHECK(GroupGpus(*f) == std::make_pair(3.0, 0.0));
    auto jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);  // third's poll (first's is leased to w1)
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kCreateComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 1.0));
    CHECK(user().in_use == 1);

    // Another issuer sees none of it.
    CHECK(f->workflow().QuotaCounters(kCarol.issuer, {}).value().empty());
    CHECK(f->workflow().QuotaCounters(kAlice.issuer, {"other"}).value().empty());

    // Delete of the completed one, then failure of the first: the counters are back to zero.
    REQUIRE(f->deployments().BeginDelete(third, false));
    jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kDeleteComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(2.0, 0.0));
    REQUIRE(f->deployments().BeginDelete(first, false));  // cancels its poll: w1's lease is gone
    jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kDeleteComplete)));
    CHECK(GroupGpus(*f) == std::make_pair(0.0, 0.0));
    CHECK(user().reserved == 0);
    CHECK(user().in_use == 0);
}

void FairShareHistory(const Factory& make) {
    auto f = make();
    const std::string id = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", Admit(2, 3)));
    CHECK(f->workflow().FairShareUsage(kAlice.issuer, hours(24 * 7)).value().empty());  // held, not ended
    auto jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kCreateComplete)));
    f->Elapse(milliseconds(300));
    REQUIRE(f->deployments().BeginDelete(id, false));
    jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    REQUIRE(f->workflow().Commit(jobs[0], "w2", WithStatus(DStatus::kDeleteComplete)));

    // 2 GPUs for at least 0.3 s (a database's own clock may add a little): GPU-hours of group g.
    const auto usage = f->workflow().FairShareUsage(kAlice.issuer, hours(24 * 7)).value();
    REQUIRE(usage.count("g") == 1);
    CHECK(usage.at("g").gpus >= 2 * 0.3 / 3600 * 0.99);
    CHECK(usage.at("g").gpus <= 2 * 60.0 / 3600);
    CHECK(usage.at("g").cpus == 0);
    // Ended today: no decay yet, whatever the half-life.
    CHECK(
        f->workflow().FairShareUsage(kAlice.issuer, milliseconds(0)).value().at("g").gpus == Approx(usage.at("g").gpus)
    );
    CHECK(f->workflow().FairShareUsage(kCarol.issuer, hours(24)).value().empty());
}

void AdmissionRace(const Factory& make) {
    auto f = make();
    constexpr int kRacers = 8;
    std::vector<std::string> ids;
    for (int i = 0; i < kRacers; ++i) {
        ids.push_back(Add(*f, {.owner = kAlice, .group = "g"}));
    }
    auto jobs = f->workflow().Claim("w1", kRacers, minutes(1)).value();
    REQUIRE(jobs.size() == static_cast<std::size_t>(kRacers));
    std::atomic<bool> go{false};
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    threads.reserve(jobs.size());
    for (const auto& job : jobs) {
        threads.emplace_back([&, job] {
            while (!go.load()) {
                std::this_thread::yield();
            }
            if (!f->workflow().Commit(job, "w1", Admit(1, 3))) {
                ++failed;
            }
        });
    }
    go = true;
    for (auto& t : threads) {
        t.join();
    }
    CHECK(failed.load() == 0);
    CHECK(GroupGpus(*f) == std::make_pair(3.0, 0.0));
    int admitted = 0;
    for (const auto& id : ids) {
        admitted += MustGet(*f, id).status_reason == "placed" ? 1 : 0;
    }
    CHECK(admitted == 3);
}

namespace {

// A place step's commit reserving `gpus` GPUs of `gpu_class` (limit `limit`) and as many of
// every GPU (limit 100) for Alice in group g.
workflow::Transition AdmitClass(const std::string& gpu_class, double gpus, double limit) {
    workflow::Transition t = Admit(gpus, 100);
    workflow::CounterKey key{
        workflow::QuotaScope::kGroup, kAlice.issuer, "g", "", "", workflow::QuotaResource::kGpus, gpu_class};
    t.admit->claims.push_back({key, gpus, limit});
    std::sort(t.admit->claims.begin(), t.admit->claims.end(), [](const auto& a, const auto& b) {
        return a.key < b.key;
    });
    return t;
}

// What group g holds (reserved + in use) of one GPU class ("" = every GPU).
double ClassHeld(StoreFixture& f, const std::string& gpu_class) {
    const auto counters = f.workflow().QuotaCounters(kAlice.issuer, {"g"});
    REQUIRE(counters);
    for (const auto& c : *counters) {
        if (c.key.scope == workflow::QuotaScope::kGroup && c.key.gpu_class == gpu_class) {
            return c.reserved + c.in_use;
        }
    }
    return 0;
}

}  // namespace

void AdmissionGpuClasses(const Factory& make) {
    auto f = make();
    const std::string v100 = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string more = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string t4 = Add(*f, {.owner = kAlice, .group = "g"});
    REQUIRE(f->workflow().Commit(ClaimFor(*f, v100), "w1", AdmitClass("V100", 2, 2)));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, more), "w1", AdmitClass("V100", 1, 2)));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, t4), "w1", AdmitClass("T4", 2, 2)));
    // The V100 class is full; T4 is another counter; every GPU counts both classes.
    CHECK(MustGet(*f, v100).status_reason == "placed");
    CHECK(MustGet(*f, more).status_reason == "queued: waiting in group g for 1 × GPU");
    CHECK(MustGet(*f, t4).status_reason == "placed");
    CHECK(ClassHeld(*f, "V100") == 2);
    CHECK(ClassHeld(*f, "T4") == 2);
    CHECK(ClassHeld(*f, "") == 4);

    // Deleting the V100 holder gives its class back (and only that).
    REQUIRE(f->deployments().BeginDelete(v100, false));
    auto jobs = f->workflow().Claim("w2", 10, minutes(1)).value();
    for (const auto& job : jobs) {
        if (job.deployment_id == v100) {
            REQUIRE(f->workflow().Commit(job, "w2", WithStatus(DStatus::kDeleteComplete)));
        }
    }
    CHECK(ClassHeld(*f, "V100") == 0);
    CHECK(ClassHeld(*f, "T4") == 2);
    CHECK(ClassHeld(*f, "") == 2);
}

void AdmissionQueue(const Factory& make) {
    auto f = make();
    const std::string first = Add(*f, {.owner = kAlice, .group = "g"});
    const std::string second = Add(*f, {.owner = kAlice, .offset = seconds(1), .group = "h"});
    const std::string carols = Add(*f, {.owner = kCarol, .group = "g"});
    const std::string placed = Add(*f, {.owner = kAlice, .offset = seconds(2), .group = "g"});
    const auto record = [](const std::string& group, double gpus) {
        workflow::WaitingRequest w;
        w.group = group;
        w.queued_at = std::chrono::system_clock::time_point(milliseconds(1'700'000'000'000));
        w.demand.gpus = gpus;
        return workflow::WaitingToJson(w);
    };
    // A place step that waits: its next deploy job carries the record.
    const auto wait = [&](const std::string& group) {
        workflow::Transition t;
        t.status_reason = "queued: position 1 in group " + group + ", waiting for 1 × GPU";
        t.next = workflow::NextJob{
            workflow::JobKind::kDeploy, Json{{workflow::kWaitingMember, record(group, 1)}}, minutes(10), true};
        return t;
    };
    REQUIRE(f->workflow().Commit(ClaimFor(*f, first), "w1", wait("g")));
    REQUIRE(f->workflow().Commit(ClaimFor(*f, carols), "w1", wait("g")));
    // A commit whose reservation does not fit: the queued job gets the admission's record.
    auto over = Admit(5, 3);
    over.admit->waiting = record("h", 5);
    REQUIRE(f->workflow().Commit(ClaimFor(*f, second), "w1", over));
    // Admitted: not waiting.
    REQUIRE(f->workflow().Commit(ClaimFor(*f, placed), "w1", Admit(1, 3)));

    const auto listed = f->workflow().WaitingRequests(kAlice.issuer, 100);
    REQUIRE(listed);
    REQUIRE(listed->size() == 2);  // oldest first, Carol's not among them
    CHECK((*listed)[0].deployment_id == first);
    CHECK((*listed)[0].group == "g");
    CHECK((*listed)[0].demand.gpus == 1);
    CHECK((*listed)[1].deployment_id == second);
    CHECK((*listed)[1].group == "h");
    CHECK((*listed)[1].demand.gpus == 5);
    CHECK((*listed)[1].queued_at.time_since_epoch() == milliseconds(1'700'000'000'000));
    CHECK(f->workflow().WaitingRequests(kAlice.issuer, 1).value().size() == 1);
    const auto others = f->workflow().WaitingRequests(kCarol.issuer, 100).value();
    REQUIRE(others.size() == 1);
    CHECK(others[0].deployment_id == carols);

    // A cancelled request leaves the queue with its job.
    REQUIRE(f->deployments().BeginDelete(first, false));
    const auto after = f->workflow().WaitingRequests(kAlice.issuer, 100).value();
    REQUIRE(after.size() == 1);
    CHECK(after[0].deployment_id == second);
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

namespace orch::test::contract {

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

namespace {

std::vector<domain::Event> EventsOf(StoreFixture& f, const std::string& id, domain::EventType type) {
    std::vector<domain::Event> out;
    // Named first: a range-for over a temporary Result's value() reads a destroyed object.
    auto events = f.events().After({.owner = Scope(std::nullopt), .deployment_id = id}).value();
    for (auto& e : events) {
        if (e.type == type) {
            out.push_back(std::move(e));
        }
    }
    return out;
}

std::size_t DeliveriesOf(StoreFixture& f, const std::string& id) {
    std::size_t n = 0;
    const auto claimed = f.workflow().ClaimCallbacks("lease-test", 100, minutes(10)).value();
    for (const auto& d : claimed) {
        n += d.deployment_id == id ? 1 : 0;
    }
    return n;
}

domain::Event LeaseEvent(domain::EventType type, const std::string& id, StoreFixture& f) {
    domain::Event e;
    e.deployment_id = id;
    e.type = type;
    e.time = f.Now();
    return e;
}

}  // namespace

void Leases(const Factory& make) {
    using workflow::ExpireOutcome;
    auto f = make();
    const auto end = Base(*f) + std::chrono::hours(2);
    // A lease set at create (and shown by GET); another renewed later; one without a lease.
    store::NewDeployment n;
    n.deployment.id = SequentialUuid();
    n.deployment.created_at = Base(*f);
    n.deployment.updated_at = Base(*f);
    n.deployment.template_text = "t";
    n.deployment.callback = "https://hooks.example.org/lease";
    n.deployment.kind = tosca::DeploymentKind::kMarathon;
    n.deployment.expires_at = end;
    n.deployment.lease_action = domain::LeaseAction::kStop;
    for (int i = 0; i < 2; ++i) {
        domain::Resource r;
        r.id = SequentialUuid();
        r.created_at = Base(*f) + seconds(i);
        r.node_name = "app";
        r.node_type = "tosca.nodes.indigo.Container.Application.Docker.Marathon";
        r.type_chain = {r.node_type, "tosca.nodes.Root"};
        r.instance_index = i;
        n.resources.push_back(std::move(r));
    }
    REQUIRE(f->deployments().Create(n));
    const std::string stopped = n.deployment.id;
    CHECK(MustGet(*f, stopped).expires_at == end);
    const std::string deleted = Add(*f, {.offset = seconds(1), .callback = "https://hooks.example.org/lease"});
    const std::string unleased = Add(*f, {.offset = seconds(2)});
    CHECK_FALSE(MustGet(*f, deleted).expires_at.has_value());
    REQUIRE(f->deployments().RenewLease(deleted, end - minutes(30)));
    CHECK(MustGet(*f, deleted).expires_at == end - minutes(30));
    CHECK(CodeOf(f->deployments().RenewLease(SequentialUuid(), end)) == ErrorCode::kNotFound);
    (void)unleased;
    // Brought to CREATE_COMPLETE with their nodes STARTED.
    for (const auto& id : {stopped, deleted}) {
        workflow::Transition t;
        t.status = DStatus::kCreateComplete;
        t.resources_state = NodeState::kStarted;
        REQUIRE(f->workflow().Commit(ClaimFor(*f, id), "w1", t));
    }
    (void)DeliveriesOf(*f, stopped);  // the completions' deliveries: claimed away

    // Due by their end, soonest first; the one without a lease never.
    CHECK(f->leases().DueLeases(end - minutes(31), 10).value().empty());
    auto due = f->leases().DueLeases(end, 10).value();
    REQUIRE(due.size() == 2);
    CHECK(due[0].deployment_id == deleted);
    CHECK(due[1].deployment_id == stopped);
    CHECK(due[1].action == domain::LeaseAction::kStop);
    CHECK(due[1].warnings_sent == 0);
    CHECK(due[1].state == workflow::LeaseState::kActive);
    CHECK(due[1].kind == tosca::DeploymentKind::kMarathon);
    CHECK(f->leases().DueLeases(end, 1).value().size() == 1);

    // Each warning once, with its event and callback delivery; a stale expiry writes nothing.
    const auto warning = LeaseEvent(domain::EventType::kLeaseWarning, stopped, *f);
    CHECK(f->leases().RecordWarning(stopped, end, 1, warning).value());
    CHECK_FALSE(f->leases().RecordWarning(stopped, end, 1, warning).value());
    CHECK_FALSE(f->leases().RecordWarning(stopped, end + seconds(1), 2, warning).value());
    CHECK(f->leases().RecordWarning(stopped, end, 2, warning).value());
    CHECK(EventsOf(*f, stopped, domain::EventType::kLeaseWarning).size() == 2);
    CHECK(DeliveriesOf(*f, stopped) == 2);
    CHECK(f->leases().DueLeases(end, 10).value()[1].warnings_sent == 2);

    // Delete: queued as DELETE queues it, once; then the lease is over.
    const auto expired = LeaseEvent(domain::EventType::kLeaseExpired, deleted, *f);
    CHECK(f->leases().Expire(deleted, end, domain::LeaseAction::kDelete, {}, expired).value() == ExpireOutcome::kStale);
    CHECK(
        f->leases().Expire(deleted, end - minutes(30), domain::LeaseAction::kDelete, {}, expired).value() ==
        ExpireOutcome::kDeleting
    );
    CHECK(MustGet(*f, deleted).status == DStatus::kDeleteInProgress);
    CHECK(ClaimFor(*f, deleted).kind == workflow::JobKind::kDelete);
    CHECK(
        f->leases().Expire(deleted, end - minutes(30), domain::LeaseAction::kDelete, {}, expired).value() ==
        ExpireOutcome::kStale
    );
    CHECK(EventsOf(*f, deleted, domain::EventType::kLeaseExpired).size() == 1);
    CHECK(DeliveriesOf(*f, deleted) == 1);
    CHECK(CodeOf(f->deployments().RenewLease(deleted, end + std::chrono::hours(1))) == ErrorCode::kConflict);

    // Stop: one node at a time through the action step, waiting while a step runs.
    const std::vector<std::string> types{"tosca.nodes.indigo.Container.Application.Docker.Marathon"};
    const auto stop_event = LeaseEvent(domain::EventType::kLeaseExpired, stopped, *f);
    CHECK(
        f->leases().Expire(stopped, end, domain::LeaseAction::kStop, types, stop_event).value() ==
        ExpireOutcome::kStopping
    );
    CHECK(
        f->leases().Expire(stopped, end, domain::LeaseAction::kStop, types, stop_event).value() == ExpireOutcome::kBusy
    );
    for (int node = 0; node < 2; ++node) {
        const auto job = ClaimFor(*f, stopped);
        CHECK(job.kind == workflow::JobKind::kAction);
        CHECK(job.payload.value("action", "") == "stop");
        workflow::ResourceChange change;
        change.id = job.payload.value("resource", "");
        change.state = NodeState::kStopped;
        workflow::Transition t;
        t.resource_changes.push_back(change);
        REQUIRE(f->workflow().Commit(job, "w1", t));
        const auto next = f->leases().Expire(stopped, end, domain::LeaseAction::kStop, types, stop_event).value();
        CHECK(next == (node == 0 ? ExpireOutcome::kStopping : ExpireOutcome::kExpired));
    }
    CHECK(MustGet(*f, stopped).status == DStatus::kCreateComplete);
    CHECK(EventsOf(*f, stopped, domain::EventType::kLeaseExpired).size() == 1);
    CHECK(f->leases().DueLeases(end, 10).value().empty());
    // A renewal starts a new lease: due again, its warnings owed again.
    REQUIRE(f->deployments().RenewLease(stopped, end + std::chrono::hours(1)));
    due = f->leases().DueLeases(end + std::chrono::hours(1), 10).value();
    REQUIRE(due.size() == 1);
    CHECK(due[0].warnings_sent == 0);
    CHECK(due[0].state == workflow::LeaseState::kActive);
}

void IamClientRecords(const Factory& make) {
    using auth::IamClientRecord;
    using auth::IamClientState;
    auto f = make();
    auto& store = f->iam_clients();
    const auto t0 = Base(*f) + milliseconds(1) + std::chrono::microseconds(7);
    const std::string deployment = RandomUuid();
    IamClientRecord first{
        .id = RandomUuid(),
        .deployment_id = deployment,
        .node_name = "iam_client",
        .issuer = "https://iam-a/",
        .created_at = t0};
    IamClientRecord second = first;
    second.id = RandomUuid();
    second.node_name = "other_client";
    second.created_at = t0 + seconds(1);
    IamClientRecord elsewhere = first;
    elsewhere.id = RandomUuid();
    elsewhere.deployment_id = RandomUuid();
    elsewhere.created_at = t0 + seconds(2);
    // No deployment row exists for either deployment: records stand on their own.
    REQUIRE(store.Reserve(second));
    REQUIRE(store.Reserve(first));
    REQUIRE(store.Reserve(elsewhere));
    const auto again = store.Reserve(first);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == ErrorCode::kConflict);

    auto mine = store.ForDeployment(deployment).value();
    REQUIRE(mine.size() == 2);
    CHECK(mine[0] == first);  // oldest first, state registering, times to the microsecond
    CHECK(mine[1] == second);
    CHECK(mine[0].state == IamClientState::kRegistering);

    REQUIRE(store.MarkRegistered(first.id, "client-1", "https://iam-a/register/client-1", "v1.sealed"));
    REQUIRE(store.MarkUnconfirmed(second.id));
    mine = store.ForDeployment(deployment).value();
    REQUIRE(mine.size() == 2);
    CHECK(mine[0].state == IamClientState::kRegistered);
    CHECK(mine[0].client_id == "client-1");
    CHECK(mine[0].registration_client_uri == "https://iam-a/register/client-1");
    CHECK(mine[0].sealed_registration_token == "v1.sealed");
    CHECK(mine[1].state == IamClientState::kUnconfirmed);
    const std::string absent = RandomUuid();
    CHECK(store.MarkRegistered(absent, "x", "https://iam-a/register/x", "v1.x").error().code == ErrorCode::kNotFound);
    CHECK(store.MarkUnconfirmed(absent).error().code == ErrorCode::kNotFound);

    // By age: strictly before, oldest first, limited.
    auto old = store.CreatedBefore(t0 + seconds(2), 10).value();
    REQUIRE(old.size() == 2);
    CHECK(old[0].id == first.id);
    CHECK(old[1].id == second.id);
    CHECK(store.CreatedBefore(t0 + seconds(3), 1).value().size() == 1);
    CHECK(store.CreatedBefore(t0, 10).value().empty());

    REQUIRE(store.Forget(first.id));
    REQUIRE(store.Forget(first.id));  // forgetting twice (a retried step) is fine
    mine = store.ForDeployment(deployment).value();
    REQUIRE(mine.size() == 1);
    CHECK(mine[0].id == second.id);
    CHECK(store.ForDeployment(elsewhere.deployment_id).value().size() == 1);
}

}  // namespace orch::test::contract
