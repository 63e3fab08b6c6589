// Self-healing end to end (docs/lifecycle.md "Self-healing"): the real orchestrator binary on a
// real PostgreSQL and two site-sim processes. Site A's process is killed (kill -9) under a running
// self-healing deployment; the deployment must come back CREATE_COMPLETE on site B within the
// configured time, and once site A is started again on its state file (it comes back holding the
// old workload, as a Marathon does from ZooKeeper) the orchestrator must delete what is left there.
// The other witness, the monitoring feed, is a real Prometheus scraping a probe exporter that marks
// site A down while its process still answers.
#include "site_rig.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/process.hpp"
#include "test_support/real_prometheus.hpp"
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <optional>
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

// probe_success of both sites as a blackbox exporter's probe job publishes it (the placement
// feed's default availability query); site A's value is the test's to set.
class ProbeExporter {
   public:
    ProbeExporter() : routes_(std::make_shared<orch::test::FixtureRoutes>()), server_(routes_) {
        routes_->Route("GET", "/metrics", [this](const orch::test::FixtureRequest&) {
            std::string text = "# TYPE probe_success gauge\n";
            for (const auto& [site, up] : {std::pair{"SITE-A", a_up_.load()}, std::pair{"SITE-B", true}}) {
                text += std::string("probe_success{job=\"paas-site-probe\",site=\"") + site + "\",service_id=\"" +
                        site + "_marathon\"} " + (up ? "1" : "0") + "\n";
            }
            return orch::test::FixtureResponse{200, "text/plain; version=0.0.4", text};
        });
    }
    void SetSiteAUp(bool up) { a_up_ = up; }
    std::string Target() const { return "127.0.0.1:" + std::to_string(server_.port()); }

   private:
    std::atomic<bool> a_up_{true};
    std::shared_ptr<orch::test::FixtureRoutes> routes_;
    orch::test::FixtureHttpServer server_;
};

struct Rig {
    /// `placement_yaml` is added after the placement section's own keys (indented two spaces:
    /// more of placement:, e.g. its monitoring feed), `self_healing_yaml` under self_healing:.
    explicit Rig(const std::string& placement_yaml = "", const std::string& self_healing_yaml = "")
        : state_file(orch::test::BinaryDir() + "/self-heal-site-a-" + orch::RandomUuid().substr(0, 8) + ".journal"),
          a(std::in_place, SimConfig("a"), std::vector<std::string>{"--state-file", state_file}),
          b(SimConfig("b")),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig(
                  {SiteSpec{"SITE-A", &*a, "Tesla T4", 8, 1.0, true, false, false},
                   SiteSpec{"SITE-B", &b, "Tesla T4", 8, 0.5, true, false, false}},
                  "",
                  placement_yaml + kSelfHealing + self_healing_yaml
              )
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, seconds(20)));
    }
    ~Rig() {
        a.reset();
        std::filesystem::remove(state_file);
        std::filesystem::remove(state_file + ".copy");
    }
    Rig(const Rig&) = delete;
    Rig& operator=(const Rig&) = delete;

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

    /// kill -9 of site A's process: its ports refuse every connection from now on.
    void KillA() {
        for (const char* name : {"marathon", "chronos", "kubernetes", "im"}) {
            ports_of_a.emplace_back("--" + std::string(name) + "-port");
            ports_of_a.push_back(std::to_string(a->Port(name)));
        }
        a->Kill();
    }

    /// A site-sim on a copy of site A's state file, on ports of its own the orchestrator does not
    /// know: what site A holds when it comes back, before the orchestrator can touch it. The
    /// replay leaves Marathon's deployments running (a replayed delete is still killing its task,
    /// as a Marathon resuming from ZooKeeper would be), so the copy is read once they are done.
    bool StateOfAHolds(const std::string& id) const {
        std::filesystem::copy_file(state_file, state_file + ".copy", std::filesystem::copy_options::overwrite_existing);
        const SimProcess copy(SimConfig("a"), {"--state-file", state_file + ".copy"});
        const auto deadline = std::chrono::steady_clock::now() + seconds(10);
        Json objects = copy.Objects();
        while (!objects.at("marathon").at("deployments").empty() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            objects = copy.Objects();
        }
        return orch::e2e::Mentions(orch::e2e::ProviderObjects(objects), id);
    }

    /// Site A started again where it was: its ports, its state file.
    void RestartA() {
        std::vector<std::string> args = {"--state-file", state_file};
        args.insert(args.end(), ports_of_a.begin(), ports_of_a.end());
        a.emplace(SimConfig("a"), std::move(args));
    }

    std::string state_file;
    std::vector<std::string> ports_of_a;
    orch::test::TestDatabase db;
    std::optional<SimProcess> a;
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

Json AttemptsOf(orch::e2e::Api& api, const std::string& id) {
    const auto listed = api.Call("GET", "/deployments/" + id + "/attempts");
    REQUIRE(listed.status == 200);
    return Json::parse(listed.body)["attempts"];
}

}  // namespace

TEST_CASE(
    "a site killed under a self-healing deployment: redeployed elsewhere, leftovers deleted on its return",
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

    const Json attempts = AttemptsOf(rig.api, id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["providerId"] == "SITE-A");
    CHECK(attempts[0]["outcome"] == "FAILED");
    CHECK(attempts[0]["reason"].get<std::string>().find("lost: site SITE-A has not answered") == 0);
    CHECK(attempts[1]["providerId"] == "SITE-B");
    CHECK(attempts[1]["outcome"] == "SUCCEEDED");

    // Site A comes back with the old workload (a copy of its state shows it); once it runs again,
    // the orchestrator deletes what is left there.
    CHECK(rig.StateOfAHolds(id));
    rig.RestartA();
    CHECK(Eventually([&] { return !Holds(*rig.a, id); }, seconds(30)));
    CHECK_FALSE(rig.StateOfAHolds(id));  // the delete reached its state: a later restart stays empty
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

    // Site A back with its workload: the deployment runs there as before and the loss is withdrawn.
    rig.RestartA();
    // (GET leaves statusReason out once it is cleared; a failed GET is an empty body, not a pass.)
    CHECK(Eventually(
        [&] {
            const Json now = rig.api.Get(id).value_or(Json());
            return now.value("status", "") == "CREATE_COMPLETE" && now.value("statusReason", "").empty();
        },
        seconds(20)
    ));
    CHECK(Holds(*rig.a, id));
    CHECK(rig.api.Get(id).value_or(Json()).value("cloudProviderName", "") == "SITE-A");
}

TEST_CASE(
    "a real Prometheus marking the site down moves a self-healing deployment whose site still answers",
    "[e2e][self-heal]"
) {
    ProbeExporter exporter;
    const orch::test::RealPrometheus prometheus(exporter.Target());
    REQUIRE(prometheus.started());
    Rig rig("  monitoring: {type: prometheus, url: " + prometheus.url() + ", ttl: 1s}\n", "  site_down_after: 3s\n");
    const std::string id = rig.Deploy({{"selfHealing", true}});
    exporter.SetSiteAUp(false);

    // One scrape a second, the feed's 1 s cache, 3 s of down marks, a create on B: within 30 s.
    const Json healed = RunningOn(rig.api, id, "SITE-B", seconds(30));
    INFO(healed.dump(2));
    REQUIRE(healed["cloudProviderName"] == "SITE-B");
    const Json attempts = AttemptsOf(rig.api, id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["reason"].get<std::string>().find("lost: the monitoring feed has marked site SITE-A down") == 0);
    // Site A's API answered throughout: what was there is deleted right away.
    CHECK(Eventually([&] { return !Holds(*rig.a, id); }, seconds(30)));
}
