// Idle GPU reclamation end to end: the real binary on real PostgreSQL places two GPU deployments
// on a site-sim Marathon site; a real Prometheus scrapes a fixture exporter publishing
// dcgm-exporter's DCGM_FI_DEV_GPU_UTIL for them (the deployment-id label a non-Kubernetes site
// adds). The idle one is notified, then stopped after the notice period; its GPU-hours appear in
// GET /quotas and /metrics; the busy one is left alone.
#include "test_support/fixture_http_server.hpp"
#include "test_support/gpu_marathon_site.hpp"
#include "test_support/orchestrator_config.hpp"
#include "test_support/process.hpp"
#include "test_support/real_prometheus.hpp"
#include "test_support/site_sim_process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

namespace {

using orch::Json;
using orch::test::RealPrometheus;
using std::chrono::seconds;

const char* kSimConfig = R"(mesos_agents:
  - {hostname: gpu-agent-1.sim, cpus: 32, mem_mb: 131072, disk_mb: 500000, gpus: 8}
timing: {task_start: 0.2, kill: 0.2}
)";

// Two Marathon apps, one GPU each, on their own runtimes: reclaimed, both are stopped (node by
// node, as a lease stops them).
std::string TwoGpuApps() {
    std::string nodes;
    for (const std::string name : {"app", "worker"}) {
        nodes += "    " + name +
                 ":\n"
                 "      type: tosca.nodes.indigo.Container.Application.Docker.Marathon\n"
                 "      artifacts:\n"
                 "        image:\n"
                 "          file: tensorflow/tensorflow:latest-gpu\n"
                 "          type: tosca.artifacts.Deployment.Image.Container.Docker\n"
                 "      requirements:\n"
                 "        - host: " +
                 name +
                 "_docker\n"
                 "    " +
                 name +
                 "_docker:\n"
                 "      type: tosca.nodes.indigo.Container.Runtime.Docker\n"
                 "      capabilities:\n"
                 "        host:\n"
                 "          properties:\n"
                 "            num_cpus: 1.0\n"
                 "            mem_size: 1 GB\n"
                 "            num_gpus: 1\n";
    }
    return "tosca_definitions_version: tosca_simple_yaml_1_0\n"
           "imports:\n"
           "  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml\n"
           "topology_template:\n"
           "  node_templates:\n" +
           nodes;
}

// The series the fixture exporter publishes: one per GPU of each deployment, as dcgm-exporter
// labels them, plus the deployment-id label the site adds.
class DcgmExporter {
   public:
    DcgmExporter() : routes_(std::make_shared<orch::test::FixtureRoutes>()), server_(routes_) {
        routes_->Route("GET", "/metrics", [this](const orch::test::FixtureRequest&) {
            const std::lock_guard lock(mutex_);
            std::string text = "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n";
            int gpu = 0;
            for (const auto& [deployment, value] : utilisation_) {
                for (int i = 0; i < 2; ++i, ++gpu) {
                    text += "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-" +
                            std::to_string(gpu) +
                            "\",modelName=\"Tesla T4\",Hostname=\"gpu-agent-1.sim\",orchestrator_deployment=\"" +
                            deployment + "\"} " + std::to_string(value) + "\n";
                }
            }
            return orch::test::FixtureResponse{200, "text/plain; version=0.0.4", text};
        });
    }
    void Set(const std::string& deployment, double value) {
        const std::lock_guard lock(mutex_);
        utilisation_[deployment] = value;
    }
    std::string Target() const { return "127.0.0.1:" + std::to_string(server_.port()); }

   private:
    std::shared_ptr<orch::test::FixtureRoutes> routes_;
    orch::test::FixtureHttpServer server_;
    std::mutex mutex_;
    std::map<std::string, double> utilisation_;
};

std::string WriteConfig(const std::string& marathon, const std::string& prometheus) {
    const std::string dir =
        orch::test::WriteSiteFiles("e2e-idle-", orch::test::GpuMarathonCatalogue(marathon), orch::test::DemoGpuSla(8));
    std::ofstream(dir + "/orchestrator.yaml")
        << orch::test::ToscaMirrorYaml() << orch::test::FilePlacementYaml(dir, "demo")
        << "workflow:\n  first_poll: 100ms\n  idle_poll: 50ms\n  max_poll: 500ms\n"
        // Short durations so the case fits in well under a minute: idle 4 s, then a 4 s notice.
        << "idle:\n  prometheus_url: " << prometheus << "\n  interval: 1s\n  groups:\n    demo:\n"
        << "      enabled: true\n      threshold_percent: 10\n      duration: 4s\n      notice: 4s\n"
        << "      action: stop\n";
    return dir + "/orchestrator.yaml";
}

class IdleSite {
   public:
    IdleSite() : sim_(kSimConfig), prometheus_(exporter_.Target()), client_(std::move(*orch::http::MakeClient({}))) {
        REQUIRE(prometheus_.started());
        process_ = std::make_unique<orch::test::OrchestratorProcess>(
            db_.dsn(), std::map<std::string, std::string>{}, WriteConfig(sim_.Url("marathon"), prometheus_.url())
        );
        REQUIRE(orch::test::WaitForStatus(process_->BaseUrl() + "/readyz", 200, seconds(20)));
    }

    orch::http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "") {
        orch::http::ClientRequest req;
        req.method = method;
        req.url = process_->BaseUrl() + path;
        req.body = body;
        req.headers = {{"Content-Type", "application/json"}};
        req.timeout = seconds(30);
        auto res = client_->Send(req);
        REQUIRE(res);
        return *res;
    }

    std::string Create(const std::string& tosca = orch::test::GpuMarathonApp(2)) {
        const auto res = Call("POST", "/deployments", Json{{"template", tosca}, {"userGroup", "demo"}}.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"];
    }

    void WaitComplete(const std::string& id) {
        const auto deadline = std::chrono::steady_clock::now() + seconds(40);
        Json d;
        while (std::chrono::steady_clock::now() < deadline) {
            d = Json::parse(Call("GET", "/deployments/" + id).body);
            if (d["status"] == "CREATE_COMPLETE") {
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        FAIL("deployment " << id << " not CREATE_COMPLETE: " << d.dump() << "\n" << process_->process().Log());
    }

    // The states of the instances of node `node` (a Marathon app; its Docker runtime node takes
    // no actions and stays STARTED).
    std::vector<std::string> AppStates(const std::string& id, const std::string& node = "app") {
        const Json page = Json::parse(Call("GET", "/deployments/" + id + "/resources").body);
        std::vector<std::string> states;
        for (const auto& r : page.value("content", Json::array())) {
            if (r.value("toscaNodeName", "") == node) {
                states.push_back(r.value("state", ""));
            }
        }
        return states;
    }

    // The idle events of a deployment as the event log holds them: (phase, time in ms).
    std::vector<std::pair<std::string, double>> IdleEvents(const std::string& id) {
        pqxx::connection conn(db_.dsn());
        pqxx::read_transaction tx(conn);
        const auto rows = tx.exec_params(
            "SELECT data->>'phase', extract(epoch from at) * 1000 FROM events "
            "WHERE deployment_id = $1::uuid AND type = 'idle' ORDER BY id",
            id
        );
        std::vector<std::pair<std::string, double>> out;
        for (const auto& row : rows) {
            out.emplace_back(row[0].as<std::string>(), row[1].as<double>());
        }
        return out;
    }

    DcgmExporter& exporter() { return exporter_; }
    std::string Log() { return process_->process().Log(); }

   private:
    orch::sim::test::SiteSimProcess sim_;
    orch::test::TestDatabase db_;
    DcgmExporter exporter_;
    RealPrometheus prometheus_;
    std::unique_ptr<orch::test::OrchestratorProcess> process_;
    std::unique_ptr<orch::http::Client> client_;
};

}  // namespace

TEST_CASE(
    "an idle GPU deployment is notified, then stopped, its GPU-hours reclaimed, a busy one stays", "[e2e][idle]"
) {
    IdleSite site;
    const std::string idle = site.Create();
    const std::string busy = site.Create();
    site.WaitComplete(idle);
    site.WaitComplete(busy);
    site.exporter().Set(idle, 2);
    site.exporter().Set(busy, 85);

    const auto deadline = std::chrono::steady_clock::now() + seconds(45);
    std::vector<std::string> states;
    while (std::chrono::steady_clock::now() < deadline) {
        states = site.AppStates(idle);
        if (!states.empty() && states.front() == "STOPPED") {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    INFO(site.Log());
    REQUIRE(states == std::vector<std::string>{"STOPPED"});

    // Told first, acted on after the notice period (4 s) had passed.
    const auto events = site.IdleEvents(idle);
    REQUIRE(events.size() == 2);
    CHECK(events[0].first == "notice");
    CHECK(events[1].first == "reclaimed");
    CHECK(events[1].second - events[0].second >= 4000);

    // The busy one: no event, still running.
    CHECK(site.IdleEvents(busy).empty());
    CHECK(site.AppStates(busy) == std::vector<std::string>{"STARTED"});

    // GET /quotas: the group's reclaimed GPU-hours (2 GPUs × ≥ 8 s idle) and its usage.
    const auto quotas = site.Call("GET", "/quotas");
    REQUIRE(quotas.status == 200);
    const Json body = Json::parse(quotas.body);
    INFO(body.dump());
    Json demo;
    for (const auto& g : body["groups"]) {
        if (g["group"] == "demo") {
            demo = g;
        }
    }
    REQUIRE(demo.is_object());
    CHECK(demo["reclamations"] == 1);
    CHECK(demo["reclaimedGpuHours"].get<double>() >= 2 * 8.0 / 3600);
    CHECK(demo["reclaimedGpuHours"].get<double>() < 2 * 60.0 / 3600);
    // No group quota is configured, only the SLA's per-service one: usage is on the site's counter.
    REQUIRE(demo["sites"].size() == 1);
    CHECK(demo["sites"][0]["serviceId"] == "SIM-A_marathon");
    CHECK(demo["sites"][0]["usage"]["gpus"].get<double>() == 4);

    // /metrics carries the same durable total.
    const auto metrics = site.Call("GET", "/metrics");
    REQUIRE(metrics.status == 200);
    CHECK_THAT(metrics.body, Catch::Contains("orch_idle_reclaimed_gpu_hours{issuer=\"local\",group=\"demo\"}"));
    CHECK_THAT(metrics.body, Catch::Contains("orch_idle_reclamations{issuer=\"local\",group=\"demo\"} 1"));
}

TEST_CASE("an idle two-app GPU deployment has both apps stopped, one after the other", "[e2e][idle]") {
    IdleSite site;
    const std::string id = site.Create(TwoGpuApps());
    site.WaitComplete(id);
    site.exporter().Set(id, 1);

    const auto deadline = std::chrono::steady_clock::now() + seconds(45);
    std::vector<std::string> app;
    std::vector<std::string> worker;
    while (std::chrono::steady_clock::now() < deadline) {
        app = site.AppStates(id, "app");
        worker = site.AppStates(id, "worker");
        if (app == std::vector<std::string>{"STOPPED"} && worker == std::vector<std::string>{"STOPPED"}) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    INFO(site.Log());
    CHECK(app == std::vector<std::string>{"STOPPED"});
    CHECK(worker == std::vector<std::string>{"STOPPED"});
    // One notice and one reclamation, however many nodes were stopped.
    const auto events = site.IdleEvents(id);
    REQUIRE(events.size() == 2);
    CHECK(events[0].first == "notice");
    CHECK(events[1].first == "reclaimed");
}
