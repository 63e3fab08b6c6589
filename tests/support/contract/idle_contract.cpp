// The idle reclamation part of the store contract (store_contract.hpp, IdleReclamation): what
// the sweep relies on from IdleStore, on PostgreSQL and on the in-memory fake alike.
#include "test_support/store_contract.hpp"

#include <common/uuid.hpp>
#include <orchestrator/auth/principal.hpp>

#include <catch2/catch.hpp>

#include <algorithm>

namespace orch::test::contract {
namespace {

using domain::NodeState;
using DStatus = domain::Status;
using std::chrono::minutes;
using std::chrono::seconds;
using workflow::IdleAction;
using workflow::IdleState;
using workflow::IdleStep;

const domain::Owner kAlice{"https://iam-a/", "alice"};
const domain::Owner kCarol{"https://iam-b/", "carol"};

// A deployment with `gpus` GPUs, two instances of a Marathon app node and one of its Docker
// runtime (which takes no actions), brought to CREATE_COMPLETE with every instance STARTED.
std::string AddRunning(StoreFixture& f, const domain::Owner& owner, const std::string& group, int gpus) {
    store::NewDeployment n;
    auto& d = n.deployment;
    d.id = SequentialUuid();
    d.created_at = std::chrono::floor<seconds>(f.Now()) - minutes(10);
    d.updated_at = d.created_at;
    d.owner = owner;
    d.user_group = group;
    d.callback = "http://127.0.0.1:9/cb";
    d.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    d.kind = tosca::DeploymentKind::kKubernetes;
    d.req_gpus = gpus;
    for (int i = 0; i < 2; ++i) {
        domain::Resource r;
        r.id = SequentialUuid();
        r.deployment_id = d.id;
        r.created_at = d.created_at;
        r.updated_at = d.created_at;
        r.node_name = "notebook";
        r.node_type = "tosca.nodes.indigo.Container.Application.Docker.Marathon";
        r.type_chain = {r.node_type, "tosca.nodes.indigo.Container.Application.Docker", "tosca.nodes.Root"};
        r.instance_index = i;
        n.resources.push_back(std::move(r));
    }
    domain::Resource runtime;
    runtime.id = SequentialUuid();
    runtime.deployment_id = d.id;
    runtime.created_at = d.created_at;
    runtime.updated_at = d.created_at;
    runtime.node_name = "docker";  // sorts first: must still not be the one stopped
    runtime.node_type = "tosca.nodes.indigo.Container.Runtime.Docker";
    runtime.type_chain = {runtime.node_type, "tosca.nodes.Root"};
    n.resources.push_back(std::move(runtime));
    REQUIRE(f.deployments().Create(n));
    auto jobs = f.workflow().Claim("w1", 100, minutes(1));
    REQUIRE(jobs);
    for (const auto& job : *jobs) {
        workflow::Transition t;
        t.status = DStatus::kCreateComplete;
        t.resources_state = NodeState::kStarted;
        REQUIRE(f.workflow().Commit(job, "w1", t));
    }
    return d.id;
}

std::optional<workflow::IdleCandidate> CandidateOf(StoreFixture& f, const std::string& id) {
    auto all = f.idle().IdleCandidates("", 100);
    REQUIRE(all);
    for (const auto& c : *all) {
        if (c.deployment_id == id) {
            return c;
        }
    }
    return std::nullopt;
}

bool Apply(StoreFixture& f, const std::string& id, IdleStep step, IdleAction action = IdleAction::kStop) {
    workflow::IdleChange c;
    c.deployment_id = id;
    c.step = step;
    c.now = std::chrono::floor<seconds>(f.Now());
    c.action = action;
    c.gpu_hours = 1.5;
    if (step == IdleStep::kNotify || step == IdleStep::kReclaim) {
        domain::Event e;
        e.type = domain::EventType::kIdle;
        e.time = c.now;
        e.data = {{"phase", step == IdleStep::kNotify ? "notice" : "reclaimed"}};
        c.events.push_back(e);
    }
    auto applied = f.idle().ApplyIdle(c);
    REQUIRE(applied);
    return *applied;
}

int IdleEvents(StoreFixture& f, const std::string& id) {
    auth::Principal local;
    local.local = true;
    store::EventQuery q{.owner = auth::OwnerFilter::VisibleTo(local), .deployment_id = id, .after_id = 0, .limit = 100};
    auto events = f.events().After(q);
    REQUIRE(events);
    return static_cast<int>(std::count_if(events->begin(), events->end(), [](const domain::Event& e) {
        return e.type == domain::EventType::kIdle;
    }));
}

int Callbacks(StoreFixture& f, const std::string& id) {
    auto claimed = f.workflow().ClaimCallbacks("cb", 100, minutes(1));
    REQUIRE(claimed);
    int n = 0;
    for (const auto& d : *claimed) {
        n += d.deployment_id == id ? 1 : 0;
        REQUIRE(f.workflow().RetryCallback(d, std::chrono::milliseconds(0), "counted"));
    }
    return n;
}

}  // namespace

void IdleReclamation(const Factory& make) {
    auto f = make();
    const std::string idle = AddRunning(*f, kAlice, "gpu-team", 2);
    const std::string cpu_only = AddRunning(*f, kAlice, "gpu-team", 0);
    const std::string other_issuer = AddRunning(*f, kCarol, "gpu-team", 1);

    // Only running deployments holding GPUs are looked at; none is watched yet.
    REQUIRE(CandidateOf(*f, idle));
    CHECK_FALSE(CandidateOf(*f, cpu_only));
    CHECK_FALSE(CandidateOf(*f, idle)->watch);
    CHECK(CandidateOf(*f, idle)->gpus == 2);

    // Reclaiming or notifying before watching writes nothing.
    CHECK_FALSE(Apply(*f, idle, IdleStep::kNotify));
    CHECK_FALSE(Apply(*f, idle, IdleStep::kReclaim));

    CHECK(Apply(*f, idle, IdleStep::kStartWatch));
    CHECK_FALSE(Apply(*f, idle, IdleStep::kStartWatch));  // a second replica's same step
    CHECK(CandidateOf(*f, idle)->watch->state == IdleState::kIdle);

    // Not yet notified: the reclamation is refused, nothing is queued.
    CHECK_FALSE(Apply(*f, idle, IdleStep::kReclaim));
    CHECK(IdleEvents(*f, idle) == 0);

    CHECK(Apply(*f, idle, IdleStep::kNotify));
    CHECK_FALSE(Apply(*f, idle, IdleStep::kNotify));
    CHECK(CandidateOf(*f, idle)->watch->state == IdleState::kNotified);
    CHECK(IdleEvents(*f, idle) == 1);
    CHECK(Callbacks(*f, idle) == 1);

    CHECK(Apply(*f, idle, IdleStep::kReclaim));
    CHECK_FALSE(Apply(*f, idle, IdleStep::kReclaim));
    // A stop: its nodes are stopped one by one from here (kStopNext), since the reclamation.
    CHECK(CandidateOf(*f, idle)->watch->state == IdleState::kStopping);
    CHECK(CandidateOf(*f, idle)->watch->reclaimed_at == std::chrono::floor<seconds>(f->Now()));
    CHECK(IdleEvents(*f, idle) == 2);
    // The stop is queued: one instance STOPPING, an action job waiting.
    auto page = f->deployments().ListResources(idle, std::nullopt, 0, 10, {});
    REQUIRE(page);
    CHECK(std::count_if(page->items.begin(), page->items.end(), [](const domain::Resource& r) {
              return r.state == NodeState::kStopping;
          }) == 1);
    for (const auto& r : page->items) {
        CHECK((r.state != NodeState::kStopping || r.node_name == "notebook"));
    }
    auto jobs = f->workflow().Claim("w2", 100, minutes(1));
    REQUIRE(jobs);
    CHECK(std::count_if(jobs->begin(), jobs->end(), [&](const workflow::Job& j) {
              return j.deployment_id == idle && j.kind == workflow::JobKind::kAction &&
                     j.payload.value("action", "") == "stop";
          }) == 1);
    // The next node once this stop is done; while one runs, nothing; none left: reclaimed.
    CHECK_FALSE(Apply(*f, idle, IdleStep::kStopNext));
    for (int node = 0; node < 2; ++node) {
        for (const auto& job : *jobs) {
            if (job.deployment_id != idle) {
                continue;
            }
            workflow::ResourceChange change;
            change.id = job.payload.value("resource", "");
            change.state = NodeState::kStopped;
            workflow::Transition t;
            t.resource_changes.push_back(change);
            REQUIRE(f->workflow().Commit(job, "w2", t));
        }
        CHECK(Apply(*f, idle, IdleStep::kStopNext));
        CHECK(CandidateOf(*f, idle)->watch->state == (node == 0 ? IdleState::kStopping : IdleState::kReclaimed));
        jobs = f->workflow().Claim("w2", 100, minutes(1));
        REQUIRE(jobs);
        CHECK(std::count_if(jobs->begin(), jobs->end(), [&](const workflow::Job& j) {
                  return j.deployment_id == idle;
              }) == (node == 0 ? 1 : 0));
    }
    CHECK_FALSE(Apply(*f, idle, IdleStep::kStopNext));     // reclaimed: no longer stopping
    CHECK_FALSE(Apply(*f, idle, IdleStep::kStopGivenUp));  // likewise
    page = f->deployments().ListResources(idle, std::nullopt, 0, 10, {});
    REQUIRE(page);
    CHECK(std::count_if(page->items.begin(), page->items.end(), [](const domain::Resource& r) {
              return r.state == NodeState::kStopped;
          }) == 2);

    auto hours = f->idle().Reclaimed(kAlice.issuer, {"gpu-team"});
    REQUIRE(hours);
    REQUIRE(hours->size() == 1);
    CHECK(hours->front().gpu_hours == Approx(1.5));
    CHECK(hours->front().reclamations == 1);
    auto carol = f->idle().Reclaimed(kCarol.issuer, {});
    REQUIRE(carol);
    CHECK(carol->empty());
    auto other_group = f->idle().Reclaimed(kAlice.issuer, {"another"});
    REQUIRE(other_group);
    CHECK(other_group->empty());

    // A stop given up (the retry cap): reclaimed as it is, once.
    const std::string stuck = AddRunning(*f, kAlice, "gpu-team", 1);
    CHECK(Apply(*f, stuck, IdleStep::kStartWatch));
    CHECK(Apply(*f, stuck, IdleStep::kNotify));
    CHECK(Apply(*f, stuck, IdleStep::kReclaim));
    CHECK(Apply(*f, stuck, IdleStep::kStopGivenUp));
    CHECK_FALSE(Apply(*f, stuck, IdleStep::kStopGivenUp));
    CHECK(CandidateOf(*f, stuck)->watch->state == IdleState::kReclaimed);

    // Delete as the action: the deployment leaves its running status at once.
    CHECK(Apply(*f, other_issuer, IdleStep::kStartWatch));
    CHECK(Apply(*f, other_issuer, IdleStep::kNotify));
    CHECK(Apply(*f, other_issuer, IdleStep::kReclaim, IdleAction::kDelete));
    auto deleted = f->deployments().Get(other_issuer);
    REQUIRE(deleted);
    REQUIRE(deleted->has_value());
    CHECK((*deleted)->status == DStatus::kDeleteInProgress);
    CHECK_FALSE(CandidateOf(*f, other_issuer));
    auto all = f->idle().AllReclaimed();
    REQUIRE(all);
    CHECK(all->size() == 2);
}

}  // namespace orch::test::contract
