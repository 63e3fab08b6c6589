// Stop and start of a Kubernetes workload, end to end: the real orchestrator binary on a
// simulated Kubernetes site. `stop` on one of the node's resources scales its Deployment to 0
// (the count kept on the Deployment), every resource of the node shows STOPPED; `start` scales
// it back and they show STARTED again. The lease and idle `stop` go through this same path; a
// lease ending with action stop is driven here too, through the sweep rather than the API.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <ctime>
#include <set>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

constexpr auto kTimeout = std::chrono::seconds(60);

std::multiset<std::string> States(orch::e2e::Api& api, const std::string& id, std::vector<std::string>* ids) {
    const auto res = api.Call("GET", "/deployments/" + id + "/resources?size=50");
    REQUIRE(res.status == 200);
    std::multiset<std::string> states;
    const Json listed = Json::parse(res.body);  // kept: the loop reads into it
    for (const auto& r : listed["content"]) {
        if (r.value("toscaNodeName", "") == "kubernetes") {
            states.insert(r.value("state", ""));
            if (ids != nullptr) {
                ids->push_back(r.value("uuid", ""));
            }
        }
    }
    return states;
}

bool WaitForStates(orch::e2e::Api& api, const std::string& id, const std::string& state, std::size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto states = States(api, id, nullptr);
        if (states.size() == count && states.count(state) == count) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
}

// An ISO 8601 UTC time `ahead` from now, as expiresAt takes it.
std::string IsoIn(std::chrono::seconds ahead) {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + ahead);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// The real binary on a fresh database and one Kubernetes site on site-sim with a GPU node.
struct KubeRig {
    explicit KubeRig(const std::string& top_level_yaml = "")
        : site(
              "speed: 20\nkube_nodes:\n  - {name: gpu-a, cpu: 16, memory_mb: 65536, gpus: 4, "
              "gpu_product: Tesla-T4}\n"
          ),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig(
                  {SiteSpec{"SITE-K", &site, "Tesla T4", 4, 1.0, false, false, true}}, "", top_level_yaml
              )
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    /// Creates the GPU Kubernetes template with `body`'s extra members; its id once CREATE_COMPLETE.
    std::string CreateRunning(Json body = Json::object()) {
        body["template"] = orch::e2e::KubernetesWithGpu("Tesla T4");
        const auto created = api.Call("POST", "/deployments", body.dump());
        INFO(created.body);
        REQUIRE(created.status == 201);
        const std::string id = Json::parse(created.body)["uuid"].get<std::string>();
        const Json d = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
        INFO(d.dump(2));
        REQUIRE(d["status"] == "CREATE_COMPLETE");
        return id;
    }

    orch::test::TestDatabase db;
    SimProcess site;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
};

}  // namespace

TEST_CASE(
    "stop scales a Kubernetes Deployment to 0 and start scales it back, its resources follow",
    "[e2e][sites][kubernetes][actions]"
) {
    KubeRig rig;
    orch::e2e::Api& api = rig.api;
    SimProcess& site = rig.site;
    const std::string id = rig.CreateRunning();
    std::vector<std::string> resources;
    const auto running = States(api, id, &resources);
    REQUIRE(running.size() == 2);
    REQUIRE(running.count("STARTED") == 2);

    const std::string action_path = "/deployments/" + id + "/resources/" + resources.front() + "/actions";
    const auto stop = api.Call("POST", action_path, Json{{"type", "stop"}}.dump());
    INFO(stop.body);
    REQUIRE(stop.status == 202);
    CHECK(WaitForStates(api, id, "STOPPED", 2));  // the Deployment acts as a whole
    const Json pods = site.Objects()["kubernetes"]["pods"];
    INFO(pods.dump(2));
    for (const auto& pod : pods) {
        CHECK(pod.value("terminating", false));  // no pod (and no GPU) is kept running
    }

    const auto start = api.Call("POST", action_path, Json{{"type", "start"}}.dump());
    INFO(start.body);
    REQUIRE(start.status == 202);
    CHECK(WaitForStates(api, id, "STARTED", 2));
    CHECK(api.Call("GET", "/deployments/" + id).status == 200);
    CHECK(Json::parse(api.Call("GET", "/deployments/" + id).body)["status"] == "CREATE_COMPLETE");
}

TEST_CASE(
    "a lease ending with action stop scales the Kubernetes Deployment to 0 through the sweep",
    "[e2e][sites][kubernetes][leases]"
) {
    KubeRig rig("leases:\n  action: stop\n  sweep_interval: 200ms\n");
    orch::e2e::Api& api = rig.api;
    SimProcess& site = rig.site;
    // Long enough to be created first (a few seconds at speed 20), short enough to wait for.
    const std::string id = rig.CreateRunning(Json{{"expiresAt", IsoIn(std::chrono::seconds(12))}});
    REQUIRE(States(api, id, nullptr).count("STARTED") == 2);
    REQUIRE(site.KubernetesDeployment(id)["spec"]["replicas"].get<int>() > 0);

    // No action is asked for: the lease's end stops it.
    CHECK(WaitForStates(api, id, "STOPPED", 2));
    const Json stopped = site.KubernetesDeployment(id);
    INFO(stopped.dump(2));
    CHECK(stopped["spec"]["replicas"] == 0);
    const Json after = Json::parse(api.Call("GET", "/deployments/" + id).body);
    CHECK(after["status"] == "CREATE_COMPLETE");  // stopped, not deleted
    // The owner was told once, with the action taken (GET .../events is a stream: read the log).
    pqxx::connection conn(rig.db.dsn());
    pqxx::read_transaction tx(conn);
    const auto told = tx.exec_params(
        "SELECT data->>'action' FROM events WHERE deployment_id = $1::uuid AND type = 'lease_expired'", id
    );
    REQUIRE(told.size() == 1);
    CHECK(told[0][0].as<std::string>() == "stop");
}
