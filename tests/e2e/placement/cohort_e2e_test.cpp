// Cohorts end to end (docs/admission.md, "Admission cycle"): the real binary on real PostgreSQL
// and a site-sim Marathon site; two groups of one cohort (workflow.admission_cohorts). One
// borrows the other's unused GPU; the lender's request then waits for it, nothing is preempted,
// and it starts once the borrowing deployment is deleted.
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

namespace {

using orch::Json;

// The site has more GPUs than the cohort: a wait can only come from the cohort's quotas.
const char* kSimConfig = R"(mesos_agents:
  - {hostname: gpu-agent-1.sim, cpus: 32, mem_mb: 131072, disk_mb: 500000, gpus: 8}
timing: {task_start: 0.2, kill: 0.2}
)";

// Both groups may use the site (no GPU limit in their SLAs).
std::string Slas() {
    std::string text;
    for (const std::string group : {"lender", "borrower"}) {
        text += group + ":\n  preferences:\n    - customer: " + group +
                "\n      preferences:\n        - service_type: compute\n"
                "          priority: [{sla_id: sla-" +
                group + ", service_id: SIM-A_marathon, weight: 1.0}]\n  sla:\n    - {id: sla-" + group +
                ", customer: " + group +
                ", provider: SIM-A, services: [{type: computing, service_id: SIM-A_marathon, targets: []}]}\n";
    }
    return text;
}

// lender: 2 GPUs, all lendable; borrower: 1 GPU and may borrow 1 more.
std::string WriteConfig(const std::string& marathon) {
    const std::string dir =
        orch::test::WriteSiteFiles("e2e-cohort-", orch::test::GpuMarathonCatalogue(marathon), Slas());
    std::ofstream(dir + "/orchestrator.yaml")
        << orch::test::ToscaMirrorYaml() << orch::test::FilePlacementYaml(dir, "")
        << "workflow:\n  first_poll: 100ms\n  idle_poll: 50ms\n  max_poll: 500ms\n  admission_retry: 200ms\n"
        << "  admission_cohorts:\n    research:\n      lender: {nominal: 2}\n"
        << "      borrower: {nominal: 1, borrowing_limit: 1}\n";
    return dir + "/orchestrator.yaml";
}

class CohortSite : public orch::test::GpuSiteHarness {
   public:
    CohortSite() : GpuSiteHarness(kSimConfig, WriteConfig) {}

    std::string Create(const std::string& group, int gpus) {
        const auto res = Call(
            "POST", "/deployments", Json{{"template", orch::test::GpuMarathonApp(gpus)}, {"userGroup", group}}.dump()
        );
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"];
    }
};

}  // namespace

TEST_CASE("a cohort group borrows a lender's GPU and gives it back when its deployment ends", "[e2e][cohort]") {
    CohortSite site;
    // 2 GPUs for the borrower: its nominal 1 and 1 borrowed from the lender.
    const std::string borrowed = site.Create("borrower", 2);
    site.WaitFor(borrowed, "CREATE_COMPLETE");
    // A third would pass its borrowing limit: it waits.
    const std::string over = site.Create("borrower", 1);
    site.WaitFor(over, "CREATE_IN_PROGRESS", "queued: position ");

    // The lender wants both its GPUs: one is lent, so it waits (nothing is preempted).
    const std::string reclaim = site.Create("lender", 2);
    site.WaitFor(reclaim, "CREATE_IN_PROGRESS", "queued: position ");
    CHECK(Json::parse(site.Call("GET", "/deployments/" + borrowed).body).value("status", "") == "CREATE_COMPLETE");

    // The borrowing deployment ends: the lent GPU comes back and the lender's request starts.
    REQUIRE(site.Call("DELETE", "/deployments/" + borrowed).status == 204);
    site.WaitFor(borrowed + "?includeDeleted=true", "DELETE_COMPLETE");
    site.WaitFor(reclaim, "CREATE_COMPLETE");
}
