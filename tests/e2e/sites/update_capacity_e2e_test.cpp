// An update that asks a site for more than it has is refused at once through the real binary,
// with the reason the dry run gives for that site, and leaves the deployment as it was.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <set>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

constexpr auto kTimeout = std::chrono::seconds(90);

std::string WithGpus(std::string text, int gpus) {
    const std::string from = "num_gpus: 1";
    text.replace(text.find(from), from.size(), "num_gpus: " + std::to_string(gpus));
    return text;
}

}  // namespace

TEST_CASE(
    "a scale past the site's GPUs is refused in under a second with the dry run's reason", "[e2e][sites][capacity]"
) {
    orch::test::TestDatabase db;
    SimProcess sim(
        "speed: 20\nkube_nodes:\n  - {name: gpu-h, cpu: 16, memory_mb: 65536, gpus: 4, gpu_product: Tesla-T4}\n"
    );
    orch::test::OrchestratorProcess orchestrator(
        db.dsn(),
        {},
        orch::e2e::WriteOrchestratorConfig({SiteSpec{"SITE-H", &sim, "Tesla T4", 4, 1.0, false, false, true}})
    );
    orch::e2e::Api api(orchestrator.BaseUrl());
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));

    const std::string text = orch::e2e::KubernetesWithGpu("Tesla T4");
    const auto created =
        api.Call("POST", "/deployments", Json{{"template", text}, {"parameters", Json::object()}}.dump());
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"].get<std::string>();
    const Json done = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(done.dump());
    REQUIRE(done["status"] == "CREATE_COMPLETE");

    // Every pod of the Deployment (replicas: 2) is a resource of its node, not only the first.
    const auto resources = api.Call("GET", "/deployments/" + id + "/resources?size=50");
    REQUIRE(resources.status == 200);
    const Json listed = Json::parse(resources.body);
    std::set<std::string> pods;
    for (const auto& r : listed["content"]) {
        if (r.value("toscaNodeName", "") == "kubernetes") {
            pods.insert(r.value("physicalId", ""));
        }
    }
    INFO(resources.body);
    CHECK(pods.size() == 2);
    CHECK(pods.count("") == 0);

    // What the dry run says about the site for the bigger request.
    const std::string bigger = WithGpus(text, 5);
    const auto dry = api.Call("POST", "/placement", Json{{"template", bigger}, {"parameters", Json::object()}}.dump());
    REQUIRE(dry.status == 200);
    INFO(dry.body);
    std::vector<std::string> reasons;
    const Json decision = Json::parse(dry.body);
    for (const auto& site : decision["sites"]) {
        if (site.value("provider_id", "") == "SITE-H" && !site.value("accepted", true)) {
            reasons = site["reasons"].get<std::vector<std::string>>();
        }
    }
    REQUIRE_FALSE(reasons.empty());

    const auto start = std::chrono::steady_clock::now();
    const auto refused =
        api.Call("PUT", "/deployments/" + id, Json{{"template", bigger}, {"parameters", Json::object()}}.dump());
    const auto elapsed = std::chrono::steady_clock::now() - start;
    INFO(refused.body);
    CHECK(refused.status == 409);
    CHECK(elapsed < std::chrono::seconds(1));
    const std::string message = Json::parse(refused.body).value("message", "");
    for (const auto& reason : reasons) {
        CHECK(message.find(reason) != std::string::npos);
    }
    CHECK(message.find("GPU") != std::string::npos);
    // Nothing was started: the deployment stays complete, its template unchanged.
    const auto after = api.Get(id);
    REQUIRE(after);
    CHECK((*after)["status"] == "CREATE_COMPLETE");

    // An update that asks for more but fits (memory) passes the check and goes through as before.
    std::string more_memory = text;
    more_memory.replace(more_memory.find("mem_size: 256 Mb"), 16, "mem_size: 512 Mb");
    const auto fits =
        api.Call("PUT", "/deployments/" + id, Json{{"template", more_memory}, {"parameters", Json::object()}}.dump());
    CHECK(fits.status == 202);
    const Json updated = api.WaitFor(id, {"UPDATE_COMPLETE", "UPDATE_FAILED"}, kTimeout);
    INFO(updated.dump());
    INFO(sim.Objects()["kubernetes"].dump());
    CHECK(updated["status"] == "UPDATE_COMPLETE");
}
