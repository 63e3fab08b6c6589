// Stop and start of a Kubernetes workload, end to end: the real orchestrator binary on a
// simulated Kubernetes site. `stop` on one of the node's resources scales its Deployment to 0
// (the count kept on the Deployment), every resource of the node shows STOPPED; `start` scales
// it back and they show STARTED again. The lease and idle `stop` go through this same path.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

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

}  // namespace

TEST_CASE(
    "stop scales a Kubernetes Deployment to 0 and start scales it back, its resources follow",
    "[e2e][sites][kubernetes][actions]"
) {
    orch::test::TestDatabase db;
    SimProcess site(
        "speed: 20\nkube_nodes:\n  - {name: gpu-a, cpu: 16, memory_mb: 65536, gpus: 4, "
        "gpu_product: Tesla-T4}\n"
    );
    orch::test::OrchestratorProcess orchestrator(
        db.dsn(),
        {},
        orch::e2e::WriteOrchestratorConfig({SiteSpec{"SITE-K", &site, "Tesla T4", 4, 1.0, false, false, true}})
    );
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    orch::e2e::Api api(orchestrator.BaseUrl());

    const auto created =
        api.Call("POST", "/deployments", Json{{"template", orch::e2e::KubernetesWithGpu("Tesla T4")}}.dump());
    INFO(created.body);
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"].get<std::string>();
    const Json d = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
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
