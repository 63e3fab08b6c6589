// GPU quotas end to end: the real binary on real PostgreSQL, placing on a site-sim Marathon site
// whose SLA gives the group a GPU quota (the demo's format, orchestrator/demo/sla.yaml). Usage is
// what the group's admitted deployments hold in the database, so deleting one frees its GPUs and
// the request waiting for them is admitted (docs/admission.md).
#include "gpu_site_harness.hpp"
#include "test_support/gpu_marathon_site.hpp"
#include "test_support/orchestrator_config.hpp"
#include "test_support/poll_deployment.hpp"
#include "test_support/process.hpp"
#include "test_support/site_sim_process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

namespace {

using orch::Json;

constexpr int kQuotaGpus = 2;

// The site has more GPUs than the quota, so a refusal can only come from the quota.
const char* kSimConfig = R"(mesos_agents:
  - {hostname: gpu-agent-1.sim, cpus: 32, mem_mb: 131072, disk_mb: 500000, gpus: 8}
timing: {task_start: 0.2, kill: 0.2}
)";

// `workers` Marathon instances of one GPU each (the `workers` input), scalable by PUT.
constexpr char kGpuWorkers[] = R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
node_types:
  e2e.ScalableMarathonApp:
    derived_from: tosca.nodes.indigo.Container.Application.Docker.Marathon
    capabilities:
      scalable:
        type: tosca.capabilities.indigo.Scalable
topology_template:
  inputs:
    workers: {type: integer, default: 1}
  node_templates:
    app:
      type: e2e.ScalableMarathonApp
      capabilities:
        scalable:
          properties:
            count: { get_input: workers }
      artifacts:
        image:
          file: tensorflow/tensorflow:latest-gpu
          type: tosca.artifacts.Deployment.Image.Container.Docker
      requirements:
        - host: Docker
    Docker:
      type: tosca.nodes.indigo.Container.Runtime.Docker
      capabilities:
        host:
          properties:
            num_cpus: 1.0
            mem_size: 1 GB
            num_gpus: 1
)";

// `group_gpus` > 0 also sets the group's configured GPU quota (placement.quotas, all services).
std::string WriteConfig(const std::string& marathon, int quota_gpus, int group_gpus) {
    const std::string dir = orch::test::WriteSiteFiles(
        "e2e-quota-", orch::test::GpuMarathonCatalogue(marathon), orch::test::DemoGpuSla(quota_gpus)
    );
    std::ofstream(dir + "/orchestrator.yaml")
        << orch::test::ToscaMirrorYaml() << orch::test::FilePlacementYaml(dir, "demo")
        << (group_gpus > 0 ? "  quotas: {groups: {demo: {group: {gpus: " + std::to_string(group_gpus) + "}}}}\n"
                           : std::string())
        << "workflow:\n  first_poll: 100ms\n  idle_poll: 50ms\n  max_poll: 500ms\n  admission_retry: 200ms\n";
    return dir + "/orchestrator.yaml";
}

class QuotaSite : public orch::test::GpuSiteHarness {
   public:
    explicit QuotaSite(int quota_gpus = kQuotaGpus, int group_gpus = 0)
        : GpuSiteHarness(kSimConfig, [&](const std::string& marathon) {
              return WriteConfig(marathon, quota_gpus, group_gpus);
          }) {}

    std::string Create(int gpus) { return CreateFrom(Json{{"template", orch::test::GpuMarathonApp(gpus)}}); }

    std::string CreateFrom(const Json& body) {
        const auto res = Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"];
    }

    // The demo group's GPUs in GET /quotas, in use + reserved: the group's own counter and the
    // site's (its SLA's).
    std::pair<double, double> HeldGpus() {
        const auto res = Call("GET", "/quotas");
        REQUIRE(res.status == 200);
        const Json body = Json::parse(res.body);
        INFO(body.dump());
        for (const auto& g : body["groups"]) {
            if (g["group"] != "demo") {
                continue;
            }
            const double group = g["usage"].value("gpus", 0.0) + g["reserved"].value("gpus", 0.0);
            double site = 0;
            for (const auto& s : g["sites"]) {
                site += s["usage"].value("gpus", 0.0) + s["reserved"].value("gpus", 0.0);
            }
            return {group, site};
        }
        return {0, 0};
    }
};

}  // namespace

TEST_CASE("a request over the group's free GPU quota waits and is admitted when GPUs are freed", "[e2e][quota]") {
    QuotaSite site;
    const std::string first = site.Create(kQuotaGpus);  // takes the whole quota
    site.WaitFor(first, "CREATE_COMPLETE");

    // Fits the quota, not what is free of it now: it waits, saying for what.
    const std::string second = site.Create(1);
    site.WaitFor(second, "CREATE_IN_PROGRESS", "queued: position 1 in group demo, waiting for 1 × GPU");

    // More than the quota itself can never fit: refused at once, with the site's reason.
    const std::string never = site.Create(kQuotaGpus + 1);
    const Json refused = site.WaitFor(never, "CREATE_FAILED");
    const std::string reason = refused["statusReason"];
    INFO(reason);
    CHECK(
        reason.find("quota exceeded: group 'demo' may use 2 GPUs on this service (SLA sla-a); 2 are in use by "
                    "active deployments and this deployment needs 3 more") != std::string::npos
    );
    // The stored placement explains the site's refusal in the same words.
    const auto placement = site.Call("GET", "/deployments/" + never + "/placement");
    REQUIRE(placement.status == 200);
    const Json decision = Json::parse(placement.body);
    REQUIRE(decision["sites"].size() == 1);
    CHECK(decision["sites"][0]["service_id"] == "SIM-A_marathon");
    CHECK(decision["sites"][0]["accepted"] == false);
    CHECK(
        decision["sites"][0]["reasons"].dump().find("quota exceeded: group 'demo' may use 2 GPUs") != std::string::npos
    );

    REQUIRE(site.Call("DELETE", "/deployments/" + first).status == 204);
    // Users get 404 once the delete completed; the admin's audit view (auth off: the local user
    // is admin) tells it completed rather than failed.
    site.WaitFor(first + "?includeDeleted=true", "DELETE_COMPLETE");
    site.WaitFor(second, "CREATE_COMPLETE");  // the freed GPUs admit the waiting request

    // A waiting request is cancelled by DELETE.
    const std::string waiting = site.Create(kQuotaGpus);
    site.WaitFor(waiting, "CREATE_IN_PROGRESS", "queued: position 1 in group demo, waiting for 2 × GPU");
    REQUIRE(site.Call("DELETE", "/deployments/" + waiting).status == 204);
    site.WaitFor(waiting + "?includeDeleted=true", "DELETE_COMPLETE");
}

TEST_CASE("scaling by PUT reserves the growth, refuses past the quota and gives back a shrink", "[e2e][quota]") {
    QuotaSite site(4, 4);  // the group may use 4 GPUs: on the site (its SLA) and overall
    const auto scale = [&](const std::string& id, int workers) {
        return site.Call(
            "PUT", "/deployments/" + id, Json{{"template", kGpuWorkers}, {"parameters", {{"workers", workers}}}}.dump()
        );
    };
    const std::string workers = site.CreateFrom(Json{{"template", kGpuWorkers}, {"parameters", {{"workers", 2}}}});
    site.WaitFor(workers, "CREATE_COMPLETE");
    CHECK(site.HeldGpus() == std::make_pair(2.0, 2.0));

    // 2 → 3 workers of one GPU: the third GPU is held from the PUT on, and after.
    auto res = scale(workers, 3);
    INFO(res.body);
    REQUIRE(res.status == 202);
    CHECK(site.HeldGpus() == std::make_pair(3.0, 3.0));
    site.WaitFor(workers, "UPDATE_COMPLETE");
    CHECK(site.HeldGpus() == std::make_pair(3.0, 3.0));

    // Another deployment takes the last GPU; 4 workers would then pass the quota: refused at once.
    const std::string other = site.Create(1);
    site.WaitFor(other, "CREATE_COMPLETE");
    CHECK(site.HeldGpus() == std::make_pair(4.0, 4.0));
    res = scale(workers, 4);
    CHECK(res.status == 409);
    CHECK_THAT(res.body, Catch::Contains("quota"));
    // Past the quota by itself (5 > 4): refused too.
    res = scale(workers, 5);
    CHECK(res.status == 409);
    CHECK_THAT(res.body, Catch::Contains("quota"));
    CHECK(site.HeldGpus() == std::make_pair(4.0, 4.0));
    CHECK(Json::parse(site.Call("GET", "/deployments/" + workers).body)["status"] == "UPDATE_COMPLETE");

    // 3 → 1 worker: given back once the scale completed; the freed GPUs hold another request.
    res = scale(workers, 1);
    REQUIRE(res.status == 202);
    site.WaitFor(workers, "UPDATE_COMPLETE");
    CHECK(site.HeldGpus() == std::make_pair(2.0, 2.0));
    res = scale(workers, 3);
    REQUIRE(res.status == 202);
    site.WaitFor(workers, "UPDATE_COMPLETE");
    CHECK(site.HeldGpus() == std::make_pair(4.0, 4.0));

    // Deleting both gives everything back.
    REQUIRE(site.Call("DELETE", "/deployments/" + workers).status == 204);
    REQUIRE(site.Call("DELETE", "/deployments/" + other).status == 204);
    site.WaitFor(workers + "?includeDeleted=true", "DELETE_COMPLETE");
    site.WaitFor(other + "?includeDeleted=true", "DELETE_COMPLETE");
    CHECK(site.HeldGpus() == std::make_pair(0.0, 0.0));
}
