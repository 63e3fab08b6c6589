// Leases (docs/lifecycle.md "Leases"): expiresAt through the real handlers, and the sweep over
// the in-memory stores with a ManualClock deciding what is due; nothing sleeps.
#include "test_support/handler_harness.hpp"

#include <orchestrator/domain/iso_time.hpp>
#include <orchestrator/workflow/lease_sweep.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>

namespace {

using orch::Json;
using orch::domain::EventType;
using orch::domain::Status;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class FixedPolicy final : public orch::workflow::LeasePolicySource {
   public:
    orch::Result<orch::workflow::LeasePolicy> ForGroup(const std::string&, const std::string&, const std::string&)
        override {
        return policy;
    }
    orch::workflow::LeasePolicy policy;
};

struct Rig {
    Rig() {
        policy.policy.maximum = hours(24 * 7);
        api.ctx.leases = &policy;
    }

    std::string At(std::chrono::seconds from_now) const {
        return orch::domain::FormatIsoTime(api.clock.now() + from_now);
    }

    orch::server::Response Create(const Json& extra) {
        Json body{
            {"template", "tosca_definitions_version: x"},
            {"userGroup", "users"},
            {"callback", "https://hooks.example.org/cb"}};
        body.update(extra);
        return api.Call("POST", "/deployments", body.dump());
    }

    // Created with `expiresAt` and brought to CREATE_COMPLETE (its app STARTED), as the workflow does.
    std::string Running(const std::string& expires_at) {
        const auto res = Create({{"expiresAt", expires_at}});
        REQUIRE(res.status == 201);
        const std::string id = Json::parse(res.body).value("uuid", "");
        auto jobs = api.stores.workflow.Claim("w", 10, seconds(30)).value();
        REQUIRE(jobs.size() == 1);
        orch::workflow::Transition t;
        t.status = Status::kCreateComplete;
        t.resources_state = orch::domain::NodeState::kStarted;
        REQUIRE(api.stores.workflow.Commit(jobs[0], "w", t));
        return id;
    }

    std::vector<orch::domain::Event> Events(EventType type) {
        const std::lock_guard lock(api.stores.db.mutex());
        std::vector<orch::domain::Event> out;
        for (const auto& row : api.stores.db.events()) {
            if (row.event.type == type) {
                out.push_back(row.event);
            }
        }
        return out;
    }

    std::size_t Callbacks() {
        const std::lock_guard lock(api.stores.db.mutex());
        return api.stores.db.callbacks().size();
    }

    Json Get(const std::string& id) { return Json::parse(api.Call("GET", "/deployments/" + id).body); }

    orch::test::HandlerHarness api;
    FixedPolicy policy;
    orch::workflow::LeaseSweeper sweeper{
        api.stores.leases, api.clock, {.warnings = {hours(24), hours(1)}, .interval = seconds(15)}, nullptr};
};

}  // namespace

TEST_CASE("expiresAt is validated on create: malformed, past and beyond the maximum are 400s", "[leases]") {
    Rig rig;
    for (const Json& bad : {Json("tomorrow"), Json(42), Json("2030-02-30T10:00:00Z"), Json("2030-01-01T10:00:00")}) {
        const auto res = rig.Create({{"expiresAt", bad}});
        INFO(bad.dump());
        CHECK(res.status == 400);
        CHECK(Json::parse(res.body).value("message", "").find("expiresAt") != std::string::npos);
    }
    const auto past = rig.Create({{"expiresAt", rig.At(-seconds(60))}});
    CHECK(past.status == 400);
    CHECK(Json::parse(past.body).value("message", "").find("expiresAt") != std::string::npos);
    const auto too_far = rig.Create({{"expiresAt", rig.At(hours(24 * 8))}});
    CHECK(too_far.status == 400);
    CHECK(Json::parse(too_far.body).value("message", "").find("maximum lease of 168h") != std::string::npos);
    const auto ok = rig.Create({{"expiresAt", rig.At(hours(2))}});
    REQUIRE(ok.status == 201);
    CHECK(Json::parse(ok.body).value("expiresAt", "") == rig.At(hours(2)));
}

TEST_CASE("the group's default lease applies when none is asked for, and none means no lease", "[leases]") {
    Rig rig;
    const auto none = rig.Create(Json::object());
    REQUIRE(none.status == 201);
    CHECK_FALSE(Json::parse(none.body).contains("expiresAt"));
    rig.policy.policy.default_duration = hours(72);
    const auto defaulted = rig.Create(Json::object());
    REQUIRE(defaulted.status == 201);
    const std::string id = Json::parse(defaulted.body).value("uuid", "");
    CHECK(rig.Get(id).value("expiresAt", "") == rig.At(hours(72)));
    // The list shows it too.
    const auto list = Json::parse(rig.api.Call("GET", "/deployments").body);
    int shown = 0;
    for (const auto& item : list["content"]) {
        shown += item.contains("expiresAt") ? 1 : 0;
    }
    CHECK(shown == 1);
}

TEST_CASE("PATCH expiresAt renews the lease without queuing any step", "[leases]") {
    Rig rig;
    const std::string id = rig.Running(rig.At(hours(2)));
    REQUIRE(rig.sweeper.SweepOnce().value() == 1);  // the 24 h warning (2 h left)
    const auto renewed = rig.api.Call("PATCH", "/deployments/" + id, Json{{"expiresAt", rig.At(hours(48))}}.dump());
    CHECK(renewed.status == 204);
    CHECK(rig.Get(id).value("expiresAt", "") == rig.At(hours(48)));
    CHECK(rig.Get(id).value("status", "") == "CREATE_COMPLETE");
    CHECK(rig.api.stores.workflow.Claim("w", 10, seconds(30)).value().empty());  // nothing redeploys
    // A PUT of the same template with only a new expiresAt is a renewal as well.
    const auto put = rig.api.Call(
        "PUT",
        "/deployments/" + id,
        Json{{"template", "tosca_definitions_version: x"}, {"expiresAt", rig.At(hours(30))}}.dump()
    );
    CHECK(put.status == 202);
    CHECK(Json::parse(put.body).value("status", "") == "CREATE_COMPLETE");
    CHECK(rig.api.stores.workflow.Claim("w", 10, seconds(30)).value().empty());
    CHECK(rig.api.Call("PATCH", "/deployments/" + id, Json{{"expiresAt", "soon"}}.dump()).status == 400);
    CHECK(
        rig.api.Call("PATCH", "/deployments/" + id, Json{{"expiresAt", rig.At(hours(24 * 30))}}.dump()).status == 400
    );
    // The renewed lease owes its warnings again (30 h left: none due yet; 23 h left: the first).
    CHECK(rig.sweeper.SweepOnce().value() == 0);
    rig.api.clock.Advance(hours(7));
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    CHECK(rig.Events(EventType::kLeaseWarning).size() == 2);
}

TEST_CASE("a lease warns at each lead time once, then deletes the deployment when it ends", "[leases]") {
    Rig rig;
    const std::string id = rig.Running(rig.At(hours(30)));
    const auto callbacks_before = rig.Callbacks();
    CHECK(rig.sweeper.SweepOnce().value() == 0);  // 30 h left: no warning owed yet
    rig.api.clock.Advance(hours(7));              // 23 h left
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    CHECK(rig.sweeper.SweepOnce().value() == 0);  // not twice
    REQUIRE(rig.Events(EventType::kLeaseWarning).size() == 1);
    CHECK(rig.Events(EventType::kLeaseWarning)[0].data.value("expiresAt", "") == rig.Get(id).value("expiresAt", ""));
    CHECK(rig.Callbacks() == callbacks_before + 1);
    rig.api.clock.Advance(hours(22) + seconds(1));  // under 1 h left
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    CHECK(rig.Events(EventType::kLeaseWarning).size() == 2);
    CHECK(rig.Get(id).value("status", "") == "CREATE_COMPLETE");
    rig.api.clock.Advance(hours(1));  // past the end
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    CHECK(rig.Get(id).value("status", "") == "DELETE_IN_PROGRESS");
    REQUIRE(rig.Events(EventType::kLeaseExpired).size() == 1);
    CHECK(rig.Events(EventType::kLeaseExpired)[0].data.value("action", "") == "delete");
    CHECK(rig.Callbacks() == callbacks_before + 3);
    auto jobs = rig.api.stores.workflow.Claim("w", 10, seconds(30)).value();
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].kind == orch::workflow::JobKind::kDelete);
    CHECK(rig.sweeper.SweepOnce().value() == 0);  // done once
}

TEST_CASE("a lease whose action is stop stops the nodes through the action step, then is over", "[leases]") {
    Rig rig;
    rig.policy.policy.action = orch::domain::LeaseAction::kStop;
    const std::string id = rig.Running(rig.At(minutes(30)));
    rig.api.clock.Advance(minutes(31));
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    CHECK(rig.Get(id).value("status", "") == "CREATE_COMPLETE");
    auto jobs = rig.api.stores.workflow.Claim("w", 10, seconds(30)).value();
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].kind == orch::workflow::JobKind::kAction);
    CHECK(jobs[0].payload.value("action", "") == "stop");
    REQUIRE(rig.Events(EventType::kLeaseExpired).size() == 1);
    CHECK(rig.Events(EventType::kLeaseExpired)[0].data.value("action", "") == "stop");
    // While the stop runs the sweep waits; once the node is stopped the lease is over.
    CHECK(rig.sweeper.SweepOnce().value() == 0);
    orch::workflow::Transition stopped;
    stopped.resources_state = orch::domain::NodeState::kStopped;
    REQUIRE(rig.api.stores.workflow.Commit(jobs[0], "w", stopped));
    CHECK(rig.sweeper.SweepOnce().value() == 1);  // nothing left to stop: EXPIRED
    CHECK(rig.sweeper.SweepOnce().value() == 0);
    CHECK(rig.api.stores.workflow.Claim("w", 10, seconds(30)).value().empty());
    CHECK(rig.Events(EventType::kLeaseExpired).size() == 1);
    CHECK(rig.Get(id).value("status", "") == "CREATE_COMPLETE");
}

TEST_CASE("an expiry decided on a lease renewed meanwhile does nothing", "[leases]") {
    Rig rig;
    const std::string id = rig.Running(rig.At(minutes(10)));
    rig.api.clock.Advance(minutes(11));
    const auto due = rig.api.stores.leases.DueLeases(rig.api.clock.now(), 10).value();
    REQUIRE(due.size() == 1);
    REQUIRE(rig.api.stores.deployments.RenewLease(id, rig.api.clock.now() + hours(5)));
    const auto outcome = rig.api.stores.leases.Expire(
        id, due[0].expires_at, orch::domain::LeaseAction::kDelete, {}, orch::domain::Event{}
    );
    CHECK(outcome.value() == orch::workflow::ExpireOutcome::kStale);
    CHECK(rig.Get(id).value("status", "") == "CREATE_COMPLETE");
    CHECK(rig.api.stores.leases.RecordWarning(id, due[0].expires_at, 1, orch::domain::Event{}).value() == false);
}

TEST_CASE(
    "a stop reaches Kubernetes Deployments, Chronos jobs, Marathon apps and VMs, Slurm jobs are deleted", "[leases]"
) {
    using orch::tosca::DeploymentKind;
    using orch::workflow::StoppableTypes;
    CHECK(
        StoppableTypes(DeploymentKind::kKubernetes) ==
        std::vector<std::string>{"tosca.nodes.indigo.Container.Application.Docker.Kubernetes"}
    );
    CHECK(
        StoppableTypes(DeploymentKind::kMarathon) ==
        std::vector<std::string>{"tosca.nodes.indigo.Container.Application.Docker.Marathon"}
    );
    CHECK(StoppableTypes(std::nullopt) == std::vector<std::string>{"tosca.nodes.indigo.Compute"});
    CHECK(
        StoppableTypes(DeploymentKind::kChronos) ==
        std::vector<std::string>{"tosca.nodes.indigo.Container.Application.Docker.Chronos"}
    );
    CHECK(StoppableTypes(DeploymentKind::kSlurm).empty());
}

namespace {

class CountingObserver final : public orch::workflow::LeaseObserver {
   public:
    int warnings = 0;
    std::vector<std::pair<std::string, std::string>> expiries;  ///< (action, outcome)
    void OnWarning() override { ++warnings; }
    void OnExpiry(orch::domain::LeaseAction action, orch::workflow::LeaseExpiryOutcome outcome) override {
        expiries.emplace_back(
            std::string(orch::domain::LeaseActionName(action)),
            std::string(orch::workflow::LeaseExpiryOutcomeName(outcome))
        );
    }
};

}  // namespace

TEST_CASE("a stop that keeps waiting is given up after stop_timeout: the owner is told, no endless retry", "[leases]") {
    Rig rig;
    CountingObserver observer;
    rig.sweeper.SetObserver(&observer);
    rig.policy.policy.action = orch::domain::LeaseAction::kStop;
    const std::string id = rig.Running(rig.At(minutes(30)));
    CHECK(rig.sweeper.SweepOnce().value() == 1);  // the 1 h warning
    CHECK(observer.warnings == 1);
    rig.api.clock.Advance(minutes(31));
    CHECK(rig.sweeper.SweepOnce().value() == 1);  // the stop is queued...
    // ...and its job never ends (a site that keeps failing it): each sweep waits, until the cap.
    for (int i = 0; i < 4; ++i) {
        rig.api.clock.Advance(minutes(14));
        CHECK(rig.sweeper.SweepOnce().value() == 0);
    }
    CHECK(rig.Events(EventType::kLeaseExpired).size() == 1);
    rig.api.clock.Advance(minutes(5));  // now 1 h 1 min after the end
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    const auto ended = rig.Events(EventType::kLeaseExpired);
    REQUIRE(ended.size() == 2);
    CHECK(ended[1].data.value("outcome", "") == "given_up");
    const Json d = rig.Get(id);
    CHECK(d.value("status", "") == "CREATE_COMPLETE");  // what runs is left as it is
    CHECK(d.value("statusReason", "").find("could not all be stopped within 3600 s") != std::string::npos);
    // Over: later sweeps do nothing.
    rig.api.clock.Advance(minutes(15));
    CHECK(rig.sweeper.SweepOnce().value() == 0);
    CHECK(rig.Events(EventType::kLeaseExpired).size() == 2);
    using Expiry = std::pair<std::string, std::string>;
    CHECK(observer.expiries.front() == Expiry{"stop", "stopping"});
    CHECK(std::count(observer.expiries.begin(), observer.expiries.end(), Expiry{"stop", "busy"}) == 4);
    CHECK(observer.expiries.back() == Expiry{"stop", "given_up"});
    CHECK(observer.expiries.size() == 6);
}

TEST_CASE("after an outage longer than stop_timeout the stop is still tried: the cap counts from then", "[leases]") {
    Rig rig;
    rig.policy.policy.action = orch::domain::LeaseAction::kStop;
    const std::string id = rig.Running(rig.At(minutes(30)));
    {
        // An operation the owner started holds the deployment when the orchestrator comes back.
        const std::lock_guard lock(rig.api.stores.db.mutex());
        rig.api.stores.db.InsertJob(
            id, orch::workflow::NextJob{orch::workflow::JobKind::kUpdate, Json::object(), {}, true}
        );
    }
    rig.api.clock.Advance(hours(3));              // down from before the end until 2.5 h after it
    CHECK(rig.sweeper.SweepOnce().value() == 0);  // busy: waited for, not given up
    CHECK(rig.Events(EventType::kLeaseExpired).empty());
    rig.api.clock.Advance(minutes(59));
    CHECK(rig.sweeper.SweepOnce().value() == 0);
    CHECK(rig.Events(EventType::kLeaseExpired).empty());
    rig.api.clock.Advance(minutes(2));  // 61 min after the first attempt
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    const auto ended = rig.Events(EventType::kLeaseExpired);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0].data.value("outcome", "") == "given_up");
    CHECK(rig.Get(id).value("status", "") == "CREATE_COMPLETE");
}

TEST_CASE("after an outage the stop goes on once the operation holding it ends", "[leases]") {
    Rig rig;
    rig.policy.policy.action = orch::domain::LeaseAction::kStop;
    const std::string id = rig.Running(rig.At(minutes(30)));
    {
        const std::lock_guard lock(rig.api.stores.db.mutex());
        rig.api.stores.db.InsertJob(
            id, orch::workflow::NextJob{orch::workflow::JobKind::kUpdate, Json::object(), {}, true}
        );
    }
    rig.api.clock.Advance(hours(3));
    CHECK(rig.sweeper.SweepOnce().value() == 0);
    auto jobs = rig.api.stores.workflow.Claim("w", 10, seconds(30)).value();
    REQUIRE(jobs.size() == 1);
    orch::workflow::Transition done;
    done.status = Status::kUpdateComplete;
    REQUIRE(rig.api.stores.workflow.Commit(jobs[0], "w", done));
    rig.api.clock.Advance(minutes(1));
    CHECK(rig.sweeper.SweepOnce().value() == 1);  // the stop is queued
    jobs = rig.api.stores.workflow.Claim("w", 10, seconds(30)).value();
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].payload.value("action", "") == "stop");
    const auto ended = rig.Events(EventType::kLeaseExpired);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0].data.value("action", "") == "stop");
}

TEST_CASE("lease metrics count the delete of an expired lease", "[leases]") {
    Rig rig;
    CountingObserver observer;
    rig.sweeper.SetObserver(&observer);
    rig.Running(rig.At(minutes(30)));
    rig.api.clock.Advance(minutes(31));
    CHECK(rig.sweeper.SweepOnce().value() == 1);
    CHECK(observer.expiries == std::vector<std::pair<std::string, std::string>>{{"delete", "deleting"}});
}
