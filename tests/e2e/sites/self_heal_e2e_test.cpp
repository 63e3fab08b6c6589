// Self-healing end to end (docs/lifecycle.md "Self-healing"): the real orchestrator binary on a
// real PostgreSQL and two site-sim processes. Site A stops answering under a running self-healing
// deployment (every Marathon request is reset, as a dead host or a cut network looks to a client);
// the deployment must come back CREATE_COMPLETE on site B within the configured time, and once
// site A answers again (its old workload still there) the orchestrator must delete what is left.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;
using std::chrono::seconds;

// Short durations: checks every second, lost after 3 s of silence, leftovers retried every 2 s.
constexpr const char* kSelfHealing =
    "self_healing:\n"
    "  check_interval: 1s\n"
    "  lost_after: 3s\n"
    "  cleanup_max_backoff: 2s\n";

std::string SimConfig(const std::string& tag) {
    return "speed: 20\n"
           "mesos_agents:\n"
           "  - {hostname: gpu-" +
           tag + ".sim, cpus: 16, mem_mb: 65536, disk_mb: 500000, gpus: 4, attributes: {gpu_model: Tesla-T4}}\n";
}

struct Rig {
    Rig()
        : a(SimConfig("a")),
          b(SimConfig("b")),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig(
                  {SiteSpec{"SITE-A", &a, "Tesla T4", 8, 1.0, true, false, false},
                   SiteSpec{"SITE-B", &b, "Tesla T4", 8, 0.5, true, false, false}},
                  "",
                  kSelfHealing
              )
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, seconds(20)));
    }

    std::string Deploy(const Json& extra) {
        Json body = {
            {"template", orch::e2e::CorpusTemplate(orch::e2e::kWebdav)},
            {"parameters", {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}}};
        body.update(extra);
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        const std::string id = Json::parse(res.body)["uuid"].get<std::string>();
        const Json d = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, seconds(60));
        INFO(d.dump(2));
        REQUIRE(d["status"] == "CREATE_COMPLETE");
        REQUIRE(d["cloudProviderName"] == "SITE-A");
        return id;
    }

    /// Site A answers no Marathon request (each connection is reset) until Return().
    void KillA() { a.AddFault(Json{{"api", "marathon"}, {"kind", "reset"}, {"times", -1}}); }
    void ReturnA() { a.ClearFaults(); }

    orch::test::TestDatabase db;
    SimProcess a;
    SimProcess b;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
};

bool Holds(const SimProcess& sim, const std::string& id) {
    return orch::e2e::Mentions(orch::e2e::ProviderObjects(sim.Objects()), id);
}

template <typename Pred>
bool Eventually(Pred pred, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return pred();
}

// The deployment as GET shows it, once it runs on `site` (or the last body seen).
Json RunningOn(orch::e2e::Api& api, const std::string& id, const std::string& site, std::chrono::seconds timeout) {
    Json last;
    Eventually(
        [&] {
            last = api.Get(id).value_or(Json());
            return last.value("status", "") == "CREATE_COMPLETE" && last.value("cloudProviderName", "") == site;
        },
        timeout
    );
    return last;
}

}  // namespace

TEST_CASE(
    "a site lost under a self-healing deployment: redeployed elsewhere, leftovers deleted on its return",
    "[e2e][self-heal]"
) {
    Rig rig;
    const std::string id = rig.Deploy({{"selfHealing", true}});
    const auto lost_at = std::chrono::steady_clock::now();
    rig.KillA();

    // lost_after 3 s + a check every 1 s + a create and its polls on B: well within 30 s.
    const Json healed = RunningOn(rig.api, id, "SITE-B", seconds(30));
    INFO(healed.dump(2));
    REQUIRE(healed["cloudProviderName"] == "SITE-B");
    CHECK(std::chrono::steady_clock::now() - lost_at < seconds(30));
    CHECK(Holds(rig.b, id));

    const auto listed = rig.api.Call("GET", "/deployments/" + id + "/attempts");
    REQUIRE(listed.status == 200);
    const Json attempts = Json::parse(listed.body)["attempts"];
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["providerId"] == "SITE-A");
    CHECK(attempts[0]["outcome"] == "FAILED");
    CHECK(attempts[0]["reason"].get<std::string>().find("lost: site SITE-A has not answered") == 0);
    CHECK(attempts[1]["providerId"] == "SITE-B");
    CHECK(attempts[1]["outcome"] == "SUCCEEDED");

    // Site A still holds the old workload while it does not answer; once back, it is deleted.
    CHECK(Holds(rig.a, id));
    rig.ReturnA();
    CHECK(Eventually([&] { return !Holds(rig.a, id); }, seconds(30)));
    CHECK(Holds(rig.b, id));
    CHECK(rig.api.Get(id).value_or(Json()).value("cloudProviderName", "") == "SITE-B");
}

TEST_CASE("a deployment not opted in stays where it was and says its site is lost", "[e2e][self-heal]") {
    Rig rig;
    const std::string id = rig.Deploy(Json::object());
    rig.KillA();
    Json d;
    CHECK(Eventually(
        [&] {
            d = rig.api.Get(id).value_or(Json());
            return d.value("statusReason", "").find("Self-healing: site SITE-A has not answered") == 0;
        },
        seconds(20)
    ));
    INFO(d.dump(2));
    CHECK(d["status"] == "CREATE_COMPLETE");
    CHECK(d["cloudProviderName"] == "SITE-A");
    CHECK(d.value("statusReason", "").find("the deployment is not moved") != std::string::npos);
    CHECK_FALSE(Holds(rig.b, id));
    rig.ReturnA();
}
