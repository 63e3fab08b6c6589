// Prompt completion from the sites' own change notifications, end to end: the real orchestrator
// binary on a simulated site whose workload becomes ready a few seconds after the create. Polls
// are made 10 s apart, so only Marathon's event stream or the Kubernetes watch can explain a
// CREATE_COMPLETE seen within 0.5 s of the site reporting ready.
#include "../sites/site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;
using SteadyTime = std::chrono::steady_clock::time_point;

// Real time (speed 1); tasks and pods start 3 s after they are scheduled.
constexpr const char* kSimConfig =
    "speed: 1\n"
    "timing: {task_start: 3, pod_start: 3}\n"
    "mesos_agents:\n"
    "  - {hostname: gpu-a.sim, cpus: 16, mem_mb: 65536, disk_mb: 500000, gpus: 4, attributes: {gpu_model: Tesla-T4}}\n"
    "kube_nodes:\n"
    "  - {name: gpu-a, cpu: 16, memory_mb: 65536, gpus: 4, gpu_product: Tesla-T4}\n";

// The first poll comes 10 s after the create, and the next ones 10 s apart.
constexpr const char* kSlowPolls = "  first_poll: 10s\n  max_poll: 10s\n";

constexpr auto kPollGap = std::chrono::seconds(9);  // CREATE_COMPLETE before this: not a poll

struct Timeline {
    std::optional<SteadyTime> site_ready;  ///< first time the test saw the site say ready
    std::optional<SteadyTime> complete;    ///< first time the test saw CREATE_COMPLETE
    Json last;                             ///< the deployment as last seen
};

// Watches the site and the orchestrator side by side, every 10 ms, until both said ready (or
// the deployment ended otherwise, or 20 s passed).
Timeline Watch(orch::e2e::Api& api, const std::string& id, const std::function<bool()>& site_ready) {
    Timeline t;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline && !(t.site_ready && t.complete)) {
        if (!t.site_ready && site_ready()) {
            t.site_ready = std::chrono::steady_clock::now();
        }
        if (!t.complete) {
            const auto res = api.Call("GET", "/deployments/" + id);
            if (res.status == 200) {
                t.last = Json::parse(res.body);
                const std::string status = t.last.value("status", "");
                if (status == "CREATE_COMPLETE") {
                    t.complete = std::chrono::steady_clock::now();
                } else if (status != "CREATE_IN_PROGRESS") {
                    break;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return t;
}

// GET on the simulator, as a client of the site would.
Json SiteGet(orch::http::Client& client, const std::string& url) {
    orch::http::ClientRequest req;
    req.url = url;
    const auto res = client.Send(req);
    return res && res->status == 200 ? Json::parse(res->body, nullptr, false) : Json();
}

struct OneSite {
    explicit OneSite(bool marathon)
        : sim(kSimConfig),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig(
                  {SiteSpec{"SITE-A", &sim, "Tesla T4", 4, 1.0, marathon, false, !marathon}}, kSlowPolls
              )
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
        auto made = orch::http::MakeClient({});
        REQUIRE(made);
        client = std::move(*made);
    }

    orch::test::TestDatabase db;
    SimProcess sim;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
    std::unique_ptr<orch::http::Client> client;
};

void CheckPrompt(const Timeline& t, SteadyTime posted) {
    INFO(t.last.dump(2));
    REQUIRE(t.complete);
    REQUIRE(t.site_ready);
    const auto after_ready = std::chrono::duration_cast<std::chrono::milliseconds>(*t.complete - *t.site_ready);
    const auto after_post = std::chrono::duration_cast<std::chrono::milliseconds>(*t.complete - posted);
    INFO(
        "CREATE_COMPLETE " << after_ready.count() << " ms after the site said ready, " << after_post.count()
                           << " ms after the POST"
    );
    CHECK(after_post < kPollGap);                 // no poll ran yet: the notification made it due
    CHECK(after_post > std::chrono::seconds(2));  // the site really took its 3 s
    CHECK(after_ready < std::chrono::milliseconds(500));
}

}  // namespace

TEST_CASE("Marathon: CREATE_COMPLETE within 0.5 s of the site's event", "[e2e][sites][progress][prompt]") {
    OneSite site(true);
    const Json body{
        {"template", orch::e2e::WithGpuModel(orch::e2e::CorpusTemplate(orch::e2e::kWebdav), "Tesla T4")},
        {"parameters", {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}}};
    const auto posted = std::chrono::steady_clock::now();
    const auto res = site.api.Call("POST", "/deployments", body.dump());
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"];
    const std::string apps_url = site.sim.Url("marathon") + "/v2/apps?embed=apps.tasks";
    const Timeline t = Watch(site.api, id, [&] {
        // Ready as the connector reads it: every app of the deployment runs (healthy, when it has
        // health checks) all its instances, its Marathon deployment over.
        const Json apps = SiteGet(*site.client, apps_url);
        int mine = 0;
        for (const auto& app : apps.value("apps", Json::array())) {
            if (app.value("id", "").find(id) == std::string::npos) {
                continue;
            }
            ++mine;
            const bool checked = !app.value("healthChecks", Json::array()).empty();
            const int up = app.value(checked ? "tasksHealthy" : "tasksRunning", 0);
            if (!app.value("deployments", Json::array()).empty() || up < app.value("instances", 1)) {
                return false;
            }
        }
        return mine > 0;
    });
    CheckPrompt(t, posted);
}

TEST_CASE("Kubernetes: CREATE_COMPLETE within 0.5 s of the watch event", "[e2e][sites][progress][prompt]") {
    OneSite site(false);
    const Json body{{"template", orch::e2e::KubernetesWithGpu("Tesla T4")}, {"parameters", Json::object()}};
    const auto posted = std::chrono::steady_clock::now();
    const auto res = site.api.Call("POST", "/deployments", body.dump());
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"];
    const std::string deployments_url = site.sim.Url("kubernetes") + "/apis/apps/v1/deployments";
    const Timeline t = Watch(site.api, id, [&] {
        const Json list = SiteGet(*site.client, deployments_url);
        int mine = 0;
        for (const auto& d : list.value("items", Json::array())) {
            if (d["metadata"].value("namespace", "").find(id) == std::string::npos) {
                continue;
            }
            ++mine;
            const int want = d["spec"].value("replicas", 1);
            if (d.value("status", Json::object()).value("availableReplicas", 0) < want) {
                return false;
            }
        }
        return mine > 0;
    });
    CheckPrompt(t, posted);
}
