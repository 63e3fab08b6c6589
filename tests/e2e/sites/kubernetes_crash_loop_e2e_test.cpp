// A crash-looping Kubernetes application, end to end: the real orchestrator binary on two
// simulated Kubernetes sites. The pod's container exits at once (SIM_EXIT_CODE), the kubelet of
// the simulator answers CrashLoopBackOff, and each attempt fails with that reason within the
// crash-loop limit instead of the ten-day provider timeout, moving on to the next site.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

// Time runs 20x; one GPU node per site, both with the model the template asks for.
std::string KubeSim(const std::string& tag) {
    return "speed: 20\nkube_nodes:\n  - {name: gpu-" + tag +
           ", cpu: 16, memory_mb: 65536, gpus: 4, gpu_product: Tesla-T4}\n";
}

}  // namespace

TEST_CASE(
    "a CrashLoopBackOff pod fails its attempt with the pod's reason and the next site is tried",
    "[e2e][sites][progress][kubernetes]"
) {
    orch::test::TestDatabase db;
    SimProcess a(KubeSim("a"));
    SimProcess b(KubeSim("b"));
    // Seconds instead of the default two minutes; the provider timeout keeps its ten-day
    // default, so only the crash-loop detection can end an attempt.
    orch::test::OrchestratorProcess orchestrator(
        db.dsn(),
        {},
        orch::e2e::WriteOrchestratorConfig(
            {SiteSpec{"SITE-A", &a, "Tesla T4", 4, 1.0, false, false, true},
             SiteSpec{"SITE-B", &b, "Tesla T4", 4, 0.5, false, false, true}},
            "  crash_loop_timeout: 3s\n"
        )
    );
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    orch::e2e::Api api(orchestrator.BaseUrl());

    // The container exits at once: the simulator's kubelet restarts it, then backs off.
    std::string text = orch::e2e::InsertAfter(
        orch::e2e::KubernetesWithGpu("Tesla T4"),
        "replicas: {type: integer",
        "environment: {type: map, required: false, entry_schema: {type: string}}"
    );
    text = orch::e2e::InsertAfter(std::move(text), "replicas: 2", "environment: {SIM_EXIT_CODE: '1'}");
    const auto started = std::chrono::steady_clock::now();
    const auto created = api.Call("POST", "/deployments", Json{{"template", text}}.dump());
    INFO(created.body);
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"].get<std::string>();
    const Json d = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, std::chrono::seconds(90));
    const auto elapsed = std::chrono::steady_clock::now() - started;
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_FAILED");
    CHECK(d.value("statusReason", "").find("CrashLoopBackOff") != std::string::npos);
    CHECK(elapsed < std::chrono::seconds(60));  // two sites × (3 s of crash loop + polls), not days

    const auto res = api.Call("GET", "/deployments/" + id + "/attempts");
    REQUIRE(res.status == 200);
    const Json attempts = Json::parse(res.body)["attempts"];
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].dump().find("SITE-A") != std::string::npos);
    CHECK(attempts[1].dump().find("SITE-B") != std::string::npos);
    for (const auto& attempt : attempts) {
        CHECK(attempt["outcome"] == "FAILED");
        const auto reason = attempt["reason"].get<std::string>();
        CHECK(reason.rfind("The application cannot start: ", 0) == 0);
        CHECK(reason.find("CrashLoopBackOff") != std::string::npos);
    }
}
