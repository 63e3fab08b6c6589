// Self-healing (docs/lifecycle.md "Self-healing"): the health side job of a running deployment,
// driven one due job at a time over the in-memory stores, a fake connector and a ManualClock, so
// "silent for longer than lost_after" and the cleanup's backoff are decided by the clock.
#include "test_support/handler_harness.hpp"

#include <common/http_client.hpp>
#include <monitoring/feed.hpp>
#include <orchestrator/auth/principal.hpp>
#include <orchestrator/workflow/deployment_steps.hpp>
#include <orchestrator/workflow/engine.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::domain::AttemptOutcome;
using orch::domain::Status;
using std::chrono::seconds;

orch::workflow::StepOptions Options() {
    orch::workflow::StepOptions o;
    o.first_poll = seconds(1);
    o.max_poll = seconds(30);
    o.max_transient_retries = 2;
    o.self_heal.check_interval = seconds(10);
    o.self_heal.lost_after = seconds(30);
    o.self_heal.cleanup_max_backoff = seconds(5);
    return o;
}

/// A monitoring feed whose word on SITE-A the test sets: down, up or nothing (no series).
class SiteFeed : public orch::monitoring::Feed {
   public:
    std::optional<bool> site_a_up;
    int collects = 0;

    std::shared_ptr<const orch::monitoring::Snapshot> Collect(const std::vector<std::string>& ids) override {
        ++collects;
        auto snapshot = std::make_shared<orch::monitoring::Snapshot>();
        for (const auto& id : ids) {
            if (id == "SITE-A" && site_a_up) {
                orch::monitoring::ProviderSignals site;
                site.provider_id = id;
                site.up = site_a_up;
                snapshot->providers[id] = site;
            }
        }
        return snapshot;
    }
    std::string Url() const override { return {}; }
    std::string Kind() const override { return "test"; }
};

struct Rig {
    orch::test::HandlerHarness api;
    SiteFeed feed;
    orch::test::FakePlacer placer;
    orch::test::FakeConnector connector;
    orch::test::FakeRegistry registry{connector};
    orch::test::FakeCredentials credentials;
    std::unique_ptr<orch::http::Client> http = std::move(*orch::http::MakeClient({}));
    orch::workflow::StepServices services{
        api.stores.workflow,
        api.templates,
        placer,
        registry,
        credentials,
        *http,
        api.clock,
        nullptr,
        nullptr,
        Options(),
        nullptr,
        &feed};
    orch::workflow::Engine engine{api.stores.workflow, {.owner = "unit-test"}};

    explicit Rig(std::vector<std::string> sites = {"SITE-A", "SITE-B"}) : placer(std::move(sites)) {
        services.resolve_outputs = [](const auto&, const auto&) {
            return orch::tosca::OutputValues{};
        };
        orch::workflow::RegisterDeploymentSteps(engine, services);
    }

    int RunDue() {
        int ran = 0;
        while (engine.RunOneDue().value()) {
            REQUIRE(++ran < 100);
        }
        return ran;
    }

    /// Moves the clock in steps of `step`, running what is due after each.
    void Pass(std::chrono::seconds total, std::chrono::seconds step = seconds(1)) {
        for (auto passed = seconds(0); passed < total; passed += step) {
            api.clock.Advance(step);
            RunDue();
        }
    }

    /// A deployment created with `body` and run to CREATE_COMPLETE on SITE-A.
    std::string Running(Json body) {
        body["template"] = "tosca_definitions_version: x";
        body["userGroup"] = "users";
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        const std::string id = Json::parse(res.body).value("uuid", "");
        RunDue();
        Pass(seconds(1));
        REQUIRE(Get(id).status == Status::kCreateComplete);
        REQUIRE(Get(id).cloud_provider_name == "SITE-A");
        return id;
    }

    orch::domain::Deployment Get(const std::string& id) { return api.stores.deployments.Get(id).value().value(); }
    std::vector<orch::domain::Attempt> Attempts(const std::string& id) {
        return api.stores.deployments.ListAttempts(id).value();
    }
    /// The statusReason texts of the deployment's progress events that mention self-healing.
    std::vector<std::string> SelfHealingEvents(const std::string& id) {
        orch::auth::Principal local;
        local.local = true;
        const auto events =
            api.stores.events
                .After({.owner = orch::auth::OwnerFilter::VisibleTo(local), .deployment_id = id, .limit = 1000})
                .value();
        std::vector<std::string> out;
        for (const auto& e : events) {
            const std::string reason = e.data.value("statusReason", std::string());
            if (reason.rfind("Self-healing", 0) == 0) {
                out.push_back(reason);
            }
        }
        return out;
    }
    bool LiveOn(const std::string& site, const std::string& id) { return connector.Live().count(site + "/" + id) > 0; }
};

}  // namespace

TEST_CASE(
    "a self-healing deployment whose site stops answering moves to the next site, and its leftovers go when the site "
    "returns",
    "[workflow][self-heal]"
) {
    Rig rig;
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    rig.connector.SetBehaviour("SITE-A", {.unreachable = true});

    rig.Pass(seconds(29));  // silent for less than lost_after: still where it was
    CHECK(rig.Get(id).status == Status::kCreateComplete);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);

    rig.Pass(seconds(20));  // the check that finds it silent for 30 s moves it
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
    const auto healed = rig.Get(id);
    CHECK(healed.status == Status::kCreateComplete);
    CHECK(healed.cloud_provider_name == "SITE-B");
    const auto attempts = rig.Attempts(id);
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].outcome == AttemptOutcome::kFailed);
    CHECK(attempts[0].reason.find("lost: site SITE-A has not answered for") == 0);
    CHECK(attempts[1].outcome == AttemptOutcome::kSucceeded);
    const auto said = rig.SelfHealingEvents(id);
    REQUIRE(said.size() == 1);
    CHECK(said[0].find("redeploying on the next suitable site") != std::string::npos);

    // The old site is down: its copy is still there, and the cleanup keeps trying.
    rig.Pass(seconds(60), seconds(5));
    CHECK(rig.LiveOn("SITE-A", id));
    rig.connector.SetBehaviour("SITE-A", {});
    rig.Pass(seconds(30), seconds(5));  // within cleanup_max_backoff of its return, then the poll
    CHECK_FALSE(rig.LiveOn("SITE-A", id));
    CHECK(rig.LiveOn("SITE-B", id));
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
}

TEST_CASE("a workload the site no longer has is redeployed at the next health check", "[workflow][self-heal]") {
    Rig rig;
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    rig.connector.Forget("SITE-A");
    rig.Pass(seconds(12));
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
    CHECK(rig.Attempts(id).at(0).reason == "lost: the deployment disappeared from site SITE-A");
}

TEST_CASE("a deployment not opted in is marked as lost once, and not moved", "[workflow][self-heal]") {
    Rig rig;
    SECTION("no selfHealing and the operator default off") {}
    SECTION("selfHealing false wins over the operator default") {
        rig.services.options.self_heal.default_enabled = true;
    }
    const bool opt_out = rig.services.options.self_heal.default_enabled;
    const std::string id = rig.Running(opt_out ? Json{{"selfHealing", false}} : Json::object());
    rig.connector.Forget("SITE-A");
    rig.Pass(seconds(60));
    const auto d = rig.Get(id);
    CHECK(d.status == Status::kCreateComplete);
    CHECK(d.cloud_provider_name == "SITE-A");
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);
    CHECK(
        d.status_reason ==
        "Self-healing: the deployment disappeared from site SITE-A; the deployment is not moved (selfHealing is not "
        "enabled)"
    );
    CHECK(rig.SelfHealingEvents(id).size() == 1);  // six checks, one event
}

TEST_CASE("the operator default moves a deployment whose request did not say", "[workflow][self-heal]") {
    Rig rig;
    rig.services.options.self_heal.default_enabled = true;
    const std::string id = rig.Running(Json::object());
    rig.connector.Forget("SITE-A");
    rig.Pass(seconds(12));
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
}

TEST_CASE("a site that answers again before lost_after is not left", "[workflow][self-heal]") {
    Rig rig;
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    rig.connector.SetBehaviour("SITE-A", {.unreachable = true});
    rig.Pass(seconds(25));
    rig.connector.SetBehaviour("SITE-A", {});
    rig.Pass(seconds(10));  // a check sees it running: the silence starts over
    rig.connector.SetBehaviour("SITE-A", {.unreachable = true});
    rig.Pass(seconds(25));
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);
    CHECK(rig.Get(id).cloud_provider_name == "SITE-A");
}

TEST_CASE("with no other suitable site the lost deployment stays and says so", "[workflow][self-heal]") {
    Rig rig({"SITE-A"});
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    rig.connector.Forget("SITE-A");
    rig.Pass(seconds(30));
    const auto d = rig.Get(id);
    CHECK(d.status == Status::kCreateComplete);
    CHECK(d.status_reason.find("no other suitable site") != std::string::npos);
    CHECK(rig.SelfHealingEvents(id).size() == 1);
}

TEST_CASE(
    "a site the monitoring feed marks down for site_down_after loses its deployment even while its API answers",
    "[workflow][self-heal]"
) {
    Rig rig;
    rig.services.options.self_heal.site_down_after = seconds(40);
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    rig.feed.site_a_up = false;

    rig.Pass(seconds(35));  // marked down for less than site_down_after: still where it was
    CHECK(rig.Get(id).cloud_provider_name == "SITE-A");
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);

    rig.Pass(seconds(20));
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
    CHECK(rig.Get(id).status == Status::kCreateComplete);
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
    CHECK(rig.Attempts(id).at(0).reason.find("lost: the monitoring feed has marked site SITE-A down for") == 0);
}

TEST_CASE(
    "only marks seen at every check in a row count, and only when site_down_after is set", "[workflow][self-heal]"
) {
    Rig rig;
    SECTION("the feed says nothing for a check: the count starts over") {
        rig.services.options.self_heal.site_down_after = seconds(40);
        const std::string id = rig.Running(Json{{"selfHealing", true}});
        rig.feed.site_a_up = false;
        rig.Pass(seconds(35));
        rig.feed.site_a_up.reset();
        rig.Pass(seconds(10));
        rig.feed.site_a_up = false;
        rig.Pass(seconds(35));
        CHECK(rig.Get(id).cloud_provider_name == "SITE-A");
        rig.Pass(seconds(20));  // now 40 s of marks in a row
        CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
    }
    SECTION("the feed says the site is up: the count starts over") {
        rig.services.options.self_heal.site_down_after = seconds(40);
        const std::string id = rig.Running(Json{{"selfHealing", true}});
        rig.feed.site_a_up = false;
        rig.Pass(seconds(35));
        rig.feed.site_a_up = true;
        rig.Pass(seconds(10));
        rig.feed.site_a_up = false;
        rig.Pass(seconds(35));
        CHECK(rig.Get(id).cloud_provider_name == "SITE-A");
        CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);
    }
    SECTION("site_down_after 0: the feed is not read") {
        const std::string id = rig.Running(Json{{"selfHealing", true}});
        rig.feed.site_a_up = false;
        rig.Pass(seconds(120), seconds(5));
        CHECK(rig.Get(id).cloud_provider_name == "SITE-A");
        CHECK(rig.feed.collects == 0);
    }
}

TEST_CASE("a deployment not opted in whose site is marked down is told once, not moved", "[workflow][self-heal]") {
    Rig rig;
    rig.services.options.self_heal.site_down_after = seconds(20);
    const std::string id = rig.Running(Json::object());
    rig.feed.site_a_up = false;
    rig.Pass(seconds(90), seconds(5));
    const auto d = rig.Get(id);
    CHECK(d.cloud_provider_name == "SITE-A");
    CHECK(d.status_reason.find("Self-healing: the monitoring feed has marked site SITE-A down for") == 0);
    CHECK(rig.SelfHealingEvents(id).size() == 1);
}

TEST_CASE(
    "the group's policy from the SLA sits between the request and the operator default", "[workflow][self-heal]"
) {
    Rig rig;
    Json body = Json::object();
    bool moves = true;
    SECTION("the group says yes, the operator no, the request nothing: moved") {
        rig.services.options.self_heal.enabled_by_group = {{"users", true}};
    }
    SECTION("the group says no, the operator yes: not moved") {
        rig.services.options.self_heal.default_enabled = true;
        rig.services.options.self_heal.enabled_by_group = {{"users", false}};
        moves = false;
    }
    SECTION("the request says no, the group yes: not moved") {
        rig.services.options.self_heal.enabled_by_group = {{"users", true}};
        body["selfHealing"] = false;
        moves = false;
    }
    SECTION("another group's policy does not apply: the operator default") {
        rig.services.options.self_heal.enabled_by_group = {{"others", true}};
        moves = false;
    }
    const std::string id = rig.Running(body);
    rig.connector.Forget("SITE-A");
    rig.Pass(seconds(12));
    CHECK(rig.Get(id).cloud_provider_name == (moves ? "SITE-B" : "SITE-A"));
}

namespace {

/// What the deployments hold on `service` (the group's GPUs there): {reserved, in use}.
std::pair<double, double> HeldOn(Rig& rig, const std::string& service) {
    std::pair<double, double> held{0, 0};
    for (const auto& [key, counter] : rig.api.stores.db.counters()) {
        if (key.scope == orch::workflow::QuotaScope::kGroupOnService && key.service_id == service &&
            key.resource == orch::workflow::QuotaResource::kGpus) {
            held.first += counter.reserved;
            held.second += counter.in_use;
        }
    }
    return held;
}

orch::placement::GroupQuota Gpus(double limit) {
    orch::placement::GroupQuota quota;
    quota.group.gpus = limit;
    return quota;
}

}  // namespace

TEST_CASE(
    "a self-healing redeploy is admitted again: the lost site's quota is released, the new site's reserved",
    "[workflow][self-heal][admission]"
) {
    Rig rig;
    rig.placer.SetSlaQuota("SITE-A", Gpus(1));
    rig.placer.SetSlaQuota("SITE-B", Gpus(1));
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    CHECK(HeldOn(rig, "SITE-A-marathon") == std::pair<double, double>{0, 1});

    rig.connector.SetBehaviour("SITE-A", {.unreachable = true});
    rig.Pass(seconds(49));
    REQUIRE(rig.Get(id).cloud_provider_name == "SITE-B");
    CHECK(rig.Get(id).status == Status::kCreateComplete);
    CHECK(HeldOn(rig, "SITE-A-marathon") == std::pair<double, double>{0, 0});  // given back
    CHECK(HeldOn(rig, "SITE-B-marathon") == std::pair<double, double>{0, 1});  // reserved, then in use
}

TEST_CASE(
    "a self-healing redeploy that does not fit the new site's quota waits, says why, and goes once it fits",
    "[workflow][self-heal][admission]"
) {
    Rig rig;
    rig.placer.SetSlaQuota("SITE-A", Gpus(1));
    rig.placer.SetSlaQuota("SITE-B", Gpus(0));
    const std::string id = rig.Running(Json{{"selfHealing", true}});
    rig.connector.SetBehaviour("SITE-A", {.unreachable = true});
    rig.Pass(seconds(60));

    const auto waiting = rig.Get(id);
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 0);
    CHECK(waiting.status == Status::kCreateComplete);
    CHECK(waiting.cloud_provider_name == "SITE-A");
    CHECK(waiting.status_reason.rfind("Self-healing: site SITE-A has not answered for", 0) == 0);
    CHECK(waiting.status_reason.find("; redeploy queued in group users, waiting for 1 × GPU") != std::string::npos);
    CHECK(rig.Attempts(id).size() == 1);                                       // nothing of the redeploy was written
    CHECK(HeldOn(rig, "SITE-A-marathon") == std::pair<double, double>{0, 1});  // still held where it runs

    rig.placer.SetSlaQuota("SITE-B", Gpus(1));
    rig.Pass(seconds(20));
    CHECK(rig.connector.CreateCalls("SITE-B", id) == 1);
    CHECK(rig.Get(id).cloud_provider_name == "SITE-B");
    CHECK(HeldOn(rig, "SITE-A-marathon") == std::pair<double, double>{0, 0});
    CHECK(HeldOn(rig, "SITE-B-marathon") == std::pair<double, double>{0, 1});
}
