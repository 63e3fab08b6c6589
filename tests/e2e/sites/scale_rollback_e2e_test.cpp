// A scale that placement lets through (the catalogue says the site has 8 GPUs) but the site's
// scheduler cannot place (its one node has 2) fails with the scheduler's reason and is rolled
// back through the real binary: the Deployment on the simulator and the deployment's resources
// are at the old replica count again, and statusReason says so.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

constexpr auto kTimeout = std::chrono::seconds(90);

// The rows of node `node` that are not DELETED.
int LiveResources(orch::e2e::Api& api, const std::string& id, const std::string& node) {
    const auto listed = api.Call("GET", "/deployments/" + id + "/resources?size=50");
    REQUIRE(listed.status == 200);
    const Json page = Json::parse(listed.body);  // outlives the loop (a temporary would not)
    int live = 0;
    for (const auto& r : page["content"]) {
        live += r.value("toscaNodeName", "") == node && r.value("state", "") != "DELETED" ? 1 : 0;
    }
    return live;
}

}  // namespace

TEST_CASE(
    "a scale the site's scheduler cannot place is rolled back to the previous replica count",
    "[e2e][sites][capacity][rollback]"
) {
    orch::test::TestDatabase db;
    SimProcess sim(
        "speed: 20\nkube_nodes:\n  - {name: gpu-r, cpu: 16, memory_mb: 65536, gpus: 2, gpu_product: Tesla-T4}\n"
    );
    // The catalogue claims 8 GPUs: placement's capacity check passes, the scheduler's does not.
    orch::test::OrchestratorProcess orchestrator(
        db.dsn(),
        {},
        orch::e2e::WriteOrchestratorConfig({SiteSpec{"SITE-R", &sim, "Tesla T4", 8, 1.0, false, false, true}})
    );
    orch::e2e::Api api(orchestrator.BaseUrl());
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));

    // The shipped types' GPU Deployment (tosca/profiles/examples), 2 replicas of one GPU each.
    const std::string text =
        orch::test::ReadFile(orch::test::SourceDir() + "/tosca/profiles/examples/gpu_deployment.yaml");
    const std::string id = api.Create(text, Json{{"gpu_model", "Tesla T4"}, {"replicas", 2}});
    REQUIRE_FALSE(id.empty());
    const Json done = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(done.dump());
    REQUIRE(done["status"] == "CREATE_COMPLETE");
    REQUIRE(LiveResources(api, id, "inference") == 2);

    const auto accepted =
        api.Call("PUT", "/deployments/" + id, Json{{"template", text}, {"parameters", {{"replicas", 3}}}}.dump());
    INFO(accepted.body);
    REQUIRE(accepted.status == 202);
    REQUIRE(LiveResources(api, id, "inference") == 3);  // the update's row for the third pod
    const Json failed = api.WaitFor(id, {"UPDATE_COMPLETE", "UPDATE_FAILED"}, kTimeout);
    INFO(failed.dump());
    REQUIRE(failed["status"] == "UPDATE_FAILED");
    const std::string reason = failed.value("statusReason", "");
    CHECK(reason.find("Insufficient nvidia.com/gpu") != std::string::npos);
    CHECK(reason.find("rolled back to 2 replicas") != std::string::npos);

    // The site runs the old count again, and the resources say the same.
    CHECK(sim.KubernetesDeployment(id)["spec"]["replicas"] == 2);
    CHECK(LiveResources(api, id, "inference") == 2);
    // The Pending pod goes; the two running pods stay.
    int pods = -1;
    for (int i = 0; i < 100 && pods != 2; ++i) {
        pods = 0;
        const Json objects = sim.Objects();
        for (const auto& p : objects["kubernetes"]["pods"]) {
            const std::string name = p.value("name", "");
            pods += name.find(id) != std::string::npos && name.find("inference") != std::string::npos &&
                            !p.value("terminating", false)
                        ? 1
                        : 0;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(sim.Objects()["kubernetes"].dump());
    CHECK(pods == 2);
}
