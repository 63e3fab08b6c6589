// Idle GPU reclamation driven sweep by sweep over the in-memory stores with a ManualClock and a
// utilisation feed the test controls: notified after the duration, stopped or deleted after the
// notice, activity cancels, no data decides nothing, a busy deployment is left alone.
#include "test_support/in_memory_idle_store.hpp"
#include "test_support/in_memory_stores.hpp"

#include <common/uuid.hpp>
#include <orchestrator/workflow/idle_reclaimer.hpp>

#include <catch2/catch.hpp>

#include <map>

namespace orch::workflow {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

struct Rig {
    ManualClock clock;
    test::InMemoryStores stores{clock};
    test::InMemoryIdleStore idle{stores.db};
    std::map<std::string, std::optional<double>> utilisation;  ///< by deployment id; absent = error
    IdlePolicies policies;

    Rig() {
        policies.defaults.enabled = true;
        policies.defaults.threshold_percent = 10;
        policies.defaults.duration = minutes(30);
        policies.defaults.notice = minutes(10);
    }

    GpuUtilisationFn Feed() {
        return [this](const IdleCandidate& c, seconds) -> Result<std::optional<double>> {
            const auto it = utilisation.find(c.deployment_id);
            if (it == utilisation.end()) {
                return Error::Unavailable("prometheus down");
            }
            return it->second;
        };
    }

    std::string AddRunning(
        const std::string& group,
        int gpus,
        const std::string& callback = "http://127.0.0.1:9/cb",
        const std::vector<std::string>& nodes = {"notebook"}
    ) {
        store::NewDeployment n;
        n.deployment.id = SequentialUuid();
        n.deployment.created_at = clock.now();
        n.deployment.owner = domain::Owner{"https://iam/", "alice"};
        n.deployment.user_group = group;
        n.deployment.callback = callback;
        n.deployment.req_gpus = gpus;
        for (const auto& node : nodes) {
            domain::Resource r;
            r.id = SequentialUuid();
            r.node_name = node;
            r.created_at = n.deployment.created_at;
            r.type_chain = {"tosca.nodes.indigo.Container.Application.Docker.Marathon", "tosca.nodes.Root"};
            n.resources.push_back(r);
        }
        REQUIRE(stores.deployments.Create(n));
        const std::lock_guard lock(stores.db.mutex());
        auto& row = stores.db.rows().at(n.deployment.id);
        row.deployment.status = domain::Status::kCreateComplete;
        for (auto& res : row.resources) {
            res.state = domain::NodeState::kStarted;
        }
        stores.db.DeleteWorkflowJobs(n.deployment.id);
        return n.deployment.id;
    }

    std::vector<std::string> IdlePhases(const std::string& id) {
        const std::lock_guard lock(stores.db.mutex());
        std::vector<std::string> out;
        for (const auto& e : stores.db.events()) {
            if (e.event.deployment_id == id && e.event.type == domain::EventType::kIdle) {
                out.push_back(e.event.data.value("phase", ""));
            }
        }
        return out;
    }

    int CallbacksOf(const std::string& id) {
        const std::lock_guard lock(stores.db.mutex());
        return static_cast<int>(std::count_if(
            stores.db.callbacks().begin(),
            stores.db.callbacks().end(),
            [&](const auto& c) { return c.delivery.deployment_id == id; }
        ));
    }

    bool StopQueued(const std::string& id) {
        const std::lock_guard lock(stores.db.mutex());
        return std::any_of(stores.db.jobs().begin(), stores.db.jobs().end(), [&](const auto& j) {
            return j.job.deployment_id == id && j.job.kind == JobKind::kAction &&
                   j.job.payload.value("action", "") == "stop";
        });
    }

    std::vector<domain::NodeState> NodeStates(const std::string& id) {
        const std::lock_guard lock(stores.db.mutex());
        std::vector<domain::NodeState> out;
        for (const auto& r : stores.db.rows().at(id).resources) {
            out.push_back(r.state);
        }
        return out;
    }

    // The workflow's part: the queued stop job runs and its node is STOPPED. How many ran.
    int RunStops() {
        auto jobs = stores.workflow.Claim("w", 10, seconds(30));
        REQUIRE(jobs);
        for (const auto& job : *jobs) {
            REQUIRE(job.kind == JobKind::kAction);
            Transition t;
            ResourceChange change;
            change.id = job.payload.value("resource", "");
            change.state = domain::NodeState::kStopped;
            t.resource_changes.push_back(change);
            REQUIRE(stores.workflow.Commit(job, "w", t));
        }
        return static_cast<int>(jobs->size());
    }

    domain::Status StatusOf(const std::string& id) {
        const std::lock_guard lock(stores.db.mutex());
        return stores.db.rows().at(id).deployment.status;
    }
};

void Sweep(IdleReclaimer& reclaimer) {
    REQUIRE(reclaimer.SweepOnce());
}

TEST_CASE("idle: notified after the duration, stopped after the notice, a busy one is left alone", "[workflow][idle]") {
    Rig rig;
    const auto idle = rig.AddRunning("gpu-team", 2);
    const auto busy = rig.AddRunning("gpu-team", 1);
    rig.utilisation[idle] = 2.0;
    rig.utilisation[busy] = 87.0;
    IdleReclaimer reclaimer(rig.idle, rig.Feed(), rig.clock, rig.policies, {});

    Sweep(reclaimer);  // starts watching
    rig.clock.Advance(minutes(29));
    Sweep(reclaimer);
    CHECK(rig.IdlePhases(idle).empty());  // not idle long enough yet
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);
    CHECK(rig.IdlePhases(idle) == std::vector<std::string>{"notice"});
    CHECK(rig.CallbacksOf(idle) == 1);
    CHECK_FALSE(rig.StopQueued(idle));  // told, not acted on

    rig.clock.Advance(minutes(9));
    Sweep(reclaimer);
    CHECK_FALSE(rig.StopQueued(idle));
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);
    CHECK(rig.StopQueued(idle));
    CHECK(rig.IdlePhases(idle) == std::vector<std::string>{"notice", "reclaimed"});
    CHECK(rig.CallbacksOf(idle) == 2);

    auto hours = rig.idle.Reclaimed("https://iam/", {"gpu-team"});
    REQUIRE(hours);
    REQUIRE(hours->size() == 1);
    CHECK(hours->front().gpu_hours == Approx(2 * 40.0 / 60));  // 2 GPUs idle for 40 minutes

    CHECK(rig.IdlePhases(busy).empty());
    CHECK_FALSE(rig.StopQueued(busy));
    CHECK(rig.CallbacksOf(busy) == 0);
}

TEST_CASE("idle: activity during the notice cancels it, and the owner is told", "[workflow][idle]") {
    Rig rig;
    const auto id = rig.AddRunning("gpu-team", 1);
    rig.utilisation[id] = 0.0;
    IdleReclaimer reclaimer(rig.idle, rig.Feed(), rig.clock, rig.policies, {});
    Sweep(reclaimer);
    rig.clock.Advance(minutes(30));
    Sweep(reclaimer);
    REQUIRE(rig.IdlePhases(id) == std::vector<std::string>{"notice"});
    rig.utilisation[id] = 55.0;
    rig.clock.Advance(minutes(5));
    Sweep(reclaimer);
    CHECK(rig.IdlePhases(id) == std::vector<std::string>{"notice", "cancelled"});
    rig.utilisation[id] = 0.0;
    rig.clock.Advance(minutes(10));
    Sweep(reclaimer);  // idle again: a new watch starts from now
    CHECK_FALSE(rig.StopQueued(id));
    rig.clock.Advance(minutes(29));
    Sweep(reclaimer);
    CHECK(rig.IdlePhases(id).size() == 2);
}

TEST_CASE("idle: no series or a failing feed decides nothing", "[workflow][idle]") {
    Rig rig;
    const auto silent = rig.AddRunning("gpu-team", 1);
    const auto unreachable = rig.AddRunning("gpu-team", 1);
    rig.utilisation[silent] = std::nullopt;
    IdleReclaimer reclaimer(rig.idle, rig.Feed(), rig.clock, rig.policies, {});
    for (int i = 0; i < 5; ++i) {
        auto report = reclaimer.SweepOnce();
        REQUIRE(report);
        CHECK(report->unknown == 2);
        CHECK(report->applied == 0);
        rig.clock.Advance(minutes(30));
    }
    CHECK(rig.IdlePhases(silent).empty());
    CHECK(rig.IdlePhases(unreachable).empty());
}

TEST_CASE("idle: the group policy decides: delete as the action, disabled groups untouched", "[workflow][idle]") {
    Rig rig;
    IdlePolicy strict = rig.policies.defaults;
    strict.action = IdleAction::kDelete;
    strict.duration = minutes(5);
    strict.notice = minutes(1);
    rig.policies.by_group["students"] = strict;
    rig.policies.by_group["exempt"] = IdlePolicy{};  // enabled = false
    const auto student = rig.AddRunning("students", 1);
    const auto exempt = rig.AddRunning("exempt", 4);
    rig.utilisation[student] = 0.0;
    rig.utilisation[exempt] = 0.0;
    IdleReclaimer reclaimer(rig.idle, rig.Feed(), rig.clock, rig.policies, {});
    Sweep(reclaimer);
    rig.clock.Advance(minutes(5));
    Sweep(reclaimer);
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);
    CHECK(rig.StatusOf(student) == domain::Status::kDeleteInProgress);
    CHECK(rig.IdlePhases(student) == std::vector<std::string>{"notice", "reclaimed"});
    rig.clock.Advance(std::chrono::hours(24));
    Sweep(reclaimer);
    CHECK(rig.StatusOf(exempt) == domain::Status::kCreateComplete);
    CHECK(rig.IdlePhases(exempt).empty());
}

TEST_CASE("idle: the decision never reclaims without a notification first", "[workflow][idle]") {
    IdlePolicy policy;
    policy.enabled = true;
    const auto now = domain::TimePoint(std::chrono::hours(1000));
    // Idle for a year but never notified: the next step is the notice, not the action.
    const IdleWatch watch{IdleState::kIdle, now - std::chrono::hours(24 * 365), {}};
    CHECK(DecideIdle(watch, 0.0, policy, now) == IdleStep::kNotify);
    CHECK(DecideIdle(std::nullopt, 0.0, policy, now) == IdleStep::kStartWatch);
    CHECK(DecideIdle(std::nullopt, std::nullopt, policy, now) == IdleStep::kNone);
    const IdleWatch notified{IdleState::kNotified, now - std::chrono::hours(5), now - policy.notice};
    CHECK(DecideIdle(notified, 0.0, policy, now) == IdleStep::kReclaim);
    CHECK(DecideIdle(notified, policy.threshold_percent, policy, now) == IdleStep::kReset);
    const IdleWatch reclaimed{IdleState::kReclaimed, now, now};
    CHECK(DecideIdle(reclaimed, 0.0, policy, now) == IdleStep::kNone);
    CHECK(DecideIdle(reclaimed, 50.0, policy, now) == IdleStep::kReset);
}

TEST_CASE("idle: a multi-node deployment is stopped node by node, as a lease stops it", "[workflow][idle]") {
    Rig rig;
    const auto id = rig.AddRunning("gpu-team", 2, "http://127.0.0.1:9/cb", {"trainer", "notebook", "board"});
    rig.utilisation[id] = 1.0;
    IdleReclaimer reclaimer(rig.idle, rig.Feed(), rig.clock, rig.policies, {});
    Sweep(reclaimer);
    rig.clock.Advance(minutes(30));
    Sweep(reclaimer);
    rig.clock.Advance(minutes(10));
    Sweep(reclaimer);  // reclaimed: the first node's stop is queued
    CHECK(rig.IdlePhases(id) == std::vector<std::string>{"notice", "reclaimed"});
    using domain::NodeState;
    CHECK(rig.NodeStates(id) == std::vector<NodeState>{NodeState::kStopping, NodeState::kStarted, NodeState::kStarted});
    Sweep(reclaimer);  // its stop still runs: nothing more is queued
    CHECK(rig.RunStops() == 1);
    // The rest follow one sweep at a time, whatever the feed says meanwhile (here: down).
    rig.utilisation.erase(id);
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);
    CHECK(rig.RunStops() == 1);
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);
    CHECK(rig.RunStops() == 1);
    CHECK(rig.NodeStates(id) == std::vector<NodeState>{NodeState::kStopped, NodeState::kStopped, NodeState::kStopped});
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);  // none left: reclaimed, and nothing more is done
    rig.utilisation[id] = 1.0;
    for (int i = 0; i < 3; ++i) {
        rig.clock.Advance(minutes(30));
        Sweep(reclaimer);
    }
    CHECK(rig.RunStops() == 0);
    CHECK(rig.IdlePhases(id) == std::vector<std::string>{"notice", "reclaimed"});
    CHECK(rig.StatusOf(id) == domain::Status::kCreateComplete);
    auto hours = rig.idle.Reclaimed("https://iam/", {"gpu-team"});
    REQUIRE(hours);
    REQUIRE(hours->size() == 1);
    CHECK(hours->front().reclamations == 1);  // one reclamation, however many nodes
}

TEST_CASE("idle: a stop that never ends is given up after stop_timeout, and the owner is told", "[workflow][idle]") {
    Rig rig;
    const auto id = rig.AddRunning("gpu-team", 1, "http://127.0.0.1:9/cb", {"trainer", "notebook"});
    rig.utilisation[id] = 1.0;
    IdleReclaimerOptions options;
    options.stop_timeout = minutes(20);
    IdleReclaimer reclaimer(rig.idle, rig.Feed(), rig.clock, rig.policies, options);
    Sweep(reclaimer);
    rig.clock.Advance(minutes(30));
    Sweep(reclaimer);
    rig.clock.Advance(minutes(10));
    Sweep(reclaimer);  // the first node's stop is queued, and never ends
    CHECK(rig.StopQueued(id));
    rig.clock.Advance(minutes(20));
    Sweep(reclaimer);  // 20 min: still within the cap
    CHECK(rig.IdlePhases(id) == std::vector<std::string>{"notice", "reclaimed"});
    rig.clock.Advance(minutes(1));
    Sweep(reclaimer);
    CHECK(rig.IdlePhases(id) == std::vector<std::string>{"notice", "reclaimed", "stopGivenUp"});
    CHECK(rig.CallbacksOf(id) == 3);
    rig.clock.Advance(minutes(30));
    Sweep(reclaimer);
    CHECK(rig.IdlePhases(id).size() == 3);
    CHECK(DecideStopping(IdleWatch{IdleState::kReclaimed, {}, {}, {}}, rig.clock.now(), minutes(1)) == IdleStep::kNone);
}

}  // namespace
}  // namespace orch::workflow
