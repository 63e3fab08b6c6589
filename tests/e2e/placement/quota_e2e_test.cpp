// GPU quotas end to end: the real binary on real PostgreSQL, placing on a site-sim Marathon site
// whose SLA gives the group a GPU quota (the demo's format, orchestrator/demo/sla.yaml). Usage is
// what the group's admitted deployments hold in the database, so deleting one frees its GPUs and
// the request waiting for them is admitted (docs/admission.md).
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

std::string WriteConfig(const std::string& marathon) {
    const std::string dir = orch::test::WriteSiteFiles(
        "e2e-quota-", orch::test::GpuMarathonCatalogue(marathon), orch::test::DemoGpuSla(kQuotaGpus)
    );
    std::ofstream(dir + "/orchestrator.yaml")
        << orch::test::ToscaMirrorYaml() << orch::test::FilePlacementYaml(dir, "demo")
        << "workflow:\n  first_poll: 100ms\n  idle_poll: 50ms\n  max_poll: 500ms\n  admission_retry: 200ms\n";
    return dir + "/orchestrator.yaml";
}

class QuotaSite {
   public:
    QuotaSite()
        : sim_(kSimConfig),
          process_(db_.dsn(), {}, WriteConfig(sim_.Url("marathon"))),
          client_(std::move(*orch::http::MakeClient({}))) {
        REQUIRE(orch::test::WaitForStatus(process_.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    orch::http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "") {
        orch::http::ClientRequest req;
        req.method = method;
        req.url = process_.BaseUrl() + path;
        req.body = body;
        req.headers = {{"Content-Type", "application/json"}};
        req.timeout = std::chrono::seconds(30);
        auto res = client_->Send(req);
        REQUIRE(res);
        return *res;
    }

    std::string Create(int gpus) {
        const auto res = Call("POST", "/deployments", Json{{"template", orch::test::GpuMarathonApp(gpus)}}.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"];
    }

    // Polls until the deployment is in `status` with a statusReason starting with `reason` (FAILs
    // on another final status or after 60 s).
    Json WaitFor(const std::string& id, const std::string& status, const std::string& reason = "") {
        const auto wanted = [&](const Json& d) {
            return d.is_object() && d.value("status", "") == status &&
                   d.value("statusReason", std::string()).rfind(reason, 0) == 0;
        };
        // Stops early on any other final status: waiting longer would only delay the failure.
        const auto polled = orch::test::PollDeployment(
            [&] { return std::optional<Json>(Json::parse(Call("GET", "/deployments/" + id).body)); },
            [&](const Json& d) { return wanted(d) || d.value("status", "").find("IN_PROGRESS") == std::string::npos; },
            std::chrono::seconds(60)
        );
        if (!wanted(polled.last)) {
            FAIL(
                "deployment " << id << " did not reach " << status << ": " << polled.last.dump() << "\n"
                              << process_.process().Log()
            );
        }
        return polled.last;
    }

   private:
    orch::sim::test::SiteSimProcess sim_;
    orch::test::TestDatabase db_;
    orch::test::OrchestratorProcess process_;
    std::unique_ptr<orch::http::Client> client_;
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
