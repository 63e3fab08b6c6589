// End to end on simulated sites: the real orchestrator binary, a real PostgreSQL (pg fixture),
// two site-sim processes with different GPU models written into a catalogue by the test, and
// templates from the corpus. Checks what a user sees (status, outputs, statusReason) and what the
// sites hold (the simulators' own listings), never the orchestrator's internals alone.
#include "site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/sse_client.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::Api;
using orch::e2e::SimProcess;
using orch::e2e::SiteSpec;

constexpr auto kDeployTimeout = std::chrono::seconds(90);
const std::set<std::string> kCreateDone = {"CREATE_COMPLETE", "CREATE_FAILED"};
const std::set<std::string> kDeleteDone = {"DELETE_COMPLETE", "DELETE_FAILED"};

using orch::e2e::KeplerWithGpu;
using orch::e2e::kGenericDev;
using orch::e2e::KubernetesWithGpu;
using orch::e2e::kWebdav;
using orch::e2e::WithGpuModel;

// A site whose Mesos agents and Kubernetes nodes carry one GPU model (attribute / label with '-'
// for spaces, as real sites label them); time runs 20x so tasks start within a poll or two.
std::string SimConfig(const std::string& tag, const std::string& gpu_label) {
    return "speed: 20\n"
           "mesos_agents:\n"
           "  - {hostname: cpu-" +
           tag +
           ".sim, cpus: 16, mem_mb: 65536, disk_mb: 500000}\n"
           "  - {hostname: gpu-" +
           tag +
           ".sim, cpus: 16, mem_mb: 65536, disk_mb: 500000, gpus: 4, "
           "attributes: {gpu_model: " +
           gpu_label +
           "}}\n"
           "kube_nodes:\n"
           "  - {name: cpu-" +
           tag +
           ", cpu: 16, memory_mb: 65536}\n"
           "  - {name: gpu-" +
           tag + ", cpu: 16, memory_mb: 65536, gpus: 4, gpu_product: " + gpu_label + "}\n";
}

// Two sites: A (Tesla T4, ranked first by SLA weight) and B (Tesla V100), each with Marathon,
// Chronos and Kubernetes services on its own simulator process.
struct TwoSites {
    explicit TwoSites(const std::string& workflow_yaml = "")
        : a(SimConfig("a", "Tesla-T4")),
          b(SimConfig("b", "Tesla-V100-PCIE-32GB")),
          orchestrator(
              db.dsn(),
              {},
              orch::e2e::WriteOrchestratorConfig(
                  {SiteSpec{"SITE-A", &a, "Tesla T4", 8, 1.0, true, true, true},
                   SiteSpec{"SITE-B", &b, "Tesla V100-PCIE-32GB", 8, 0.5, true, true, true}},
                  workflow_yaml
              )
          ),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    // Creates and waits for the create to end; returns the final deployment body.
    Json Deploy(const std::string& template_text, const Json& parameters, std::string& id) {
        const Json body = {{"template", template_text}, {"parameters", parameters}};
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        id = Json::parse(res.body)["uuid"].get<std::string>();
        return api.WaitFor(id, kCreateDone, kDeployTimeout);
    }

    orch::test::TestDatabase db;
    SimProcess a;
    SimProcess b;
    orch::test::OrchestratorProcess orchestrator;
    Api api;
};

// kepler-batch's inputs: required ones, and the optional ones without default that its
// environment reads (get_input of an absent input without default is an error, as in the original).
Json KeplerInputs() {
    return {
        {"authorization_token", "t"},
        {"config_json", "{}"},
        {"futuregateway_uri", "http://fg.example"},
        {"token_service_uri", "http://ts.example"},
        {"token_service_user", "u"},
        {"token_service_password", "p"},
        {"task_id", "42"}};
}

std::string ProviderOf(const Json& deployment) {
    return deployment.value("cloudProviderName", "");
}

// The Mesos agent each task of `deployment_id` runs on, from the simulator's listing.
std::set<std::string> TaskHosts(const SimProcess& sim, const std::string& deployment_id) {
    std::set<std::string> hosts;
    const Json objects = sim.Objects();
    UNSCOPED_INFO("Marathon objects: " << objects["marathon"].dump());  // shown if the next check fails
    for (const auto& t : objects["marathon"]["tasks"]) {
        if (t.value("app", "").find(deployment_id) != std::string::npos) {
            hosts.insert(t.value("host", ""));
        }
    }
    return hosts;
}

// The Marathon app as the simulator holds it (GET /v2/apps/<id>).
Json MarathonApp(const SimProcess& sim, const std::string& app_id) {
    Api marathon(sim.Url("marathon"));
    const auto res = marathon.Call("GET", "/v2/apps" + app_id);
    REQUIRE(res.status == 200);
    return Json::parse(res.body)["app"];
}

bool Holds(const SimProcess& sim, const std::string& deployment_id) {
    return orch::e2e::Mentions(orch::e2e::ProviderObjects(sim.Objects()), deployment_id);
}

// Polls until the simulator holds nothing of the deployment (cleanup runs asynchronously).
bool BecomesEmptyOf(const SimProcess& sim, const std::string& deployment_id, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!Holds(sim, deployment_id)) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
}

void CheckNoRejections(const SimProcess& sim) {
    const Json rejected = sim.Rejections();
    INFO(rejected.dump(2));
    CHECK(rejected.empty());
}

}  // namespace

TEST_CASE("corpus GPU Marathon templates complete on the first-ranked site with endpoint outputs", "[e2e][sites]") {
    TwoSites sites;
    std::string id;
    const Json d = sites.Deploy(
        orch::e2e::CorpusTemplate(kWebdav), {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}, id
    );
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(ProviderOf(d) == "SITE-A");
    CHECK(TaskHosts(sites.a, id) == std::set<std::string>{"gpu-a.sim"});
    CHECK_FALSE(Holds(sites.b, id));
    // The endpoints are the load balancer of the site and the service ports Marathon assigned.
    const Json app = MarathonApp(sites.a, "/" + id + "/marathon");
    CHECK(app["gpus"] == 1);
    const auto& ports = app["portDefinitions"];
    REQUIRE(ports.size() == 3);
    const auto& out = d["outputs"];
    CHECK(out["deepaas_endpoint"] == "http://127.0.0.1:" + std::to_string(ports[0]["port"].get<int>()));
    CHECK(out["monitor_endpoint"] == "http://127.0.0.1:" + std::to_string(ports[1]["port"].get<int>()));
    CHECK(out["jupyter_endpoint"] == "http://127.0.0.1:" + std::to_string(ports[2]["port"].get<int>()));
    CHECK(out["Docker_num_gpus"] == 1);

    // A second corpus template, two GPUs, on the same simulated site.
    std::string dev_id;
    const Json dev = sites.Deploy(
        orch::e2e::CorpusTemplate(kGenericDev),
        {{"docker_image", "deephdc/deep-oc-generic-dev:tf1.14.0-gpu"}, {"num_gpus", 2}},
        dev_id
    );
    INFO(dev.dump(2));
    REQUIRE(dev["status"] == "CREATE_COMPLETE");
    CHECK(ProviderOf(dev) == "SITE-A");
    CHECK(MarathonApp(sites.a, "/" + dev_id + "/marathon")["gpus"] == 2);
    CHECK(std::regex_match(
        dev["outputs"]["deepaas_endpoint"].get<std::string>(), std::regex(R"(http://127\.0\.0\.1:\d+/ui)")
    ));
    CheckNoRejections(sites.a);
}

TEST_CASE(
    "a GPU model request lands on the site that has the model, Marathon, Chronos and Kubernetes", "[e2e][sites]"
) {
    TwoSites sites;
    std::string id;
    const Json d = sites.Deploy(
        WithGpuModel(orch::e2e::CorpusTemplate(kWebdav), "V100"),
        {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}},
        id
    );
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(ProviderOf(d) == "SITE-B");  // A is ranked first but has Tesla T4
    CHECK(TaskHosts(sites.b, id) == std::set<std::string>{"gpu-b.sim"});
    CHECK_FALSE(Holds(sites.a, id));

    std::string job_id;
    const Json job = sites.Deploy(
        KeplerWithGpu("V100"),
        KeplerInputs(),

        job_id
    );
    INFO(job.dump(2));
    REQUIRE(job["status"] == "CREATE_COMPLETE");
    CHECK(ProviderOf(job) == "SITE-B");
    bool succeeded = false;
    const Json chronos = sites.b.Objects()["chronos"];
    INFO(chronos.dump());
    for (const auto& j : chronos["jobs"]) {
        if (j["name"].get<std::string>().rfind(job_id, 0) == 0) {
            succeeded = j["status"] == "success";
        }
    }
    CHECK(succeeded);
    CHECK_FALSE(Holds(sites.a, job_id));

    std::string k8s_id;
    const Json k8s = sites.Deploy(KubernetesWithGpu("Tesla T4"), Json::object(), k8s_id);
    INFO(k8s.dump(2));
    REQUIRE(k8s["status"] == "CREATE_COMPLETE");
    CHECK(ProviderOf(k8s) == "SITE-A");
    int pods_on_gpu_node = 0;
    const Json kube = sites.a.Objects()["kubernetes"];
    INFO(kube.dump());
    for (const auto& pod : kube["pods"]) {
        if (pod["name"].get<std::string>().find(k8s_id) != std::string::npos) {
            CHECK(pod["node"] == "gpu-a");
            ++pods_on_gpu_node;
        }
    }
    CHECK(pods_on_gpu_node == 2);  // replicas: 2 in the fixture
    CHECK(std::regex_match(k8s["outputs"]["endpoint"].get<std::string>(), std::regex(R"(127\.0\.0\.1:\d+)")));
    CHECK_FALSE(Holds(sites.b, k8s_id));
    CheckNoRejections(sites.a);
    CheckNoRejections(sites.b);
}

namespace {

// Injects `rule` into site A's Marathon, deploys the webdav GPU template and checks that it
// completes on site B, that the durable attempts keep site A with a reason containing
// `reason_part`, and that site A ends up holding nothing of the deployment.
void MovesToNextSite(const Json& rule, const std::string& reason_part, const std::string& workflow_yaml = "") {
    TwoSites sites(workflow_yaml);
    sites.a.AddFault(rule);
    std::string id;
    const Json d = sites.Deploy(
        orch::e2e::CorpusTemplate(kWebdav), {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}, id
    );
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(ProviderOf(d) == "SITE-B");
    CHECK(TaskHosts(sites.b, id) == std::set<std::string>{"gpu-b.sim"});
    // The fault was really met (not a ranking accident).
    bool hit = rule["kind"] == "capacity";  // capacity rules change the cluster, not a request
    for (const auto& f : sites.a.Faults()) {
        hit = hit || f.value("hits", 0) > 0;
    }
    CHECK(hit);
    const Json attempts = orch::e2e::AttemptsOf(sites.db.dsn(), id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["provider_id"] == "SITE-A");
    CHECK(attempts[0]["outcome"] == "FAILED");
    CHECK(attempts[0]["reason"].get<std::string>().find(reason_part) != std::string::npos);
    CHECK(attempts[1]["provider_id"] == "SITE-B");
    CHECK(attempts[1]["outcome"] == "SUCCEEDED");
    // What the user sees of the same at GET /deployments/{id}/attempts: both, in order.
    const auto listed = sites.api.Call("GET", "/deployments/" + id + "/attempts");
    INFO(listed.body);
    REQUIRE(listed.status == 200);
    const Json shown = Json::parse(listed.body)["attempts"];
    REQUIRE(shown.size() == 2);
    CHECK(shown[0]["providerId"] == "SITE-A");
    CHECK(shown[0]["serviceId"] == attempts[0]["service_id"]);
    CHECK(shown[0]["outcome"] == "FAILED");
    CHECK(shown[0]["reason"].get<std::string>().find(reason_part) != std::string::npos);
    CHECK(shown[1]["providerId"] == "SITE-B");
    CHECK(shown[1]["serviceId"] == attempts[1]["service_id"]);
    CHECK(shown[1]["outcome"] == "SUCCEEDED");
    CHECK_FALSE(shown[1].contains("reason"));
    for (const auto& a : shown) {
        REQUIRE(a.contains("finishedAt"));
        CHECK(a["startedAt"].get<std::string>() <= a["finishedAt"].get<std::string>());
    }
    // The second site was tried after the first had failed (fixed-width UTC: text order is time order).
    CHECK(shown[0]["finishedAt"].get<std::string>() <= shown[1]["startedAt"].get<std::string>());
    // And in the deployment's event stream: both attempts, in order, then the completion.
    orch::test::SseClient stream(sites.orchestrator.port(), "/deployments/" + id + "/events");
    const auto events =
        stream.ReadUntil([](const auto& got) { return orch::test::Has(got, "completed"); }, std::chrono::seconds(30));
    std::vector<std::string> steps;
    for (const auto& e : events) {
        if (e.type == "attempt_started" || e.type == "attempt_ended" || e.type == "completed") {
            const Json& data = e.data["data"];
            steps.push_back(e.type + " " + data.value("site", "") + " " + data.value("outcome", ""));
        }
    }
    CHECK(
        steps ==
        std::vector<std::string>{
            "attempt_started SITE-A ",
            "attempt_ended SITE-A FAILED",
            "attempt_started SITE-B ",
            "attempt_ended SITE-B SUCCEEDED",
            "completed  "}
    );
    sites.a.ClearFaults();
    CHECK(BecomesEmptyOf(sites.a, id, std::chrono::seconds(60)));
    CHECK(Holds(sites.b, id));
    CheckNoRejections(sites.a);
    CheckNoRejections(sites.b);
}

}  // namespace

TEST_CASE("5xx answers from the first-ranked Marathon move the deployment to the next site", "[e2e][sites][faults]") {
    MovesToNextSite(
        {{"api", "marathon"},
         {"path", "/v2/groups"},
         {"method", "POST"},
         {"kind", "status"},
         {"status", 503},
         {"times", -1}},
        "failed with HTTP 503",
        "  transient_retries: 1\n"
    );
}

TEST_CASE(
    "connection resets at the first-ranked Marathon move the deployment to the next site", "[e2e][sites][faults]"
) {
    MovesToNextSite(
        {{"api", "marathon"}, {"path", "/v2/groups"}, {"method", "POST"}, {"kind", "reset"}, {"times", -1}},
        "cannot reach Marathon SITE-A",
        "  transient_retries: 1\n"
    );
}

TEST_CASE("no free GPU at the first-ranked Marathon moves the deployment and cleans the site", "[e2e][sites][faults]") {
    MovesToNextSite(
        {{"api", "marathon"}, {"kind", "capacity"}, {"resource", "gpus"}, {"times", -1}},
        "every offer was declined: InsufficientGpus"
    );
}

TEST_CASE(
    "a create reply slower than the call timeout moves on and the late group is removed", "[e2e][sites][faults]"
) {
    // The simulator creates the group, then answers after 16 s (the connector gives up at 15 s).
    MovesToNextSite(
        {{"api", "marathon"},
         {"path", "/v2/groups"},
         {"method", "POST"},
         {"kind", "slow"},
         {"delay_ms", 16000},
         {"times", 1}},
        "timed out",
        "  transient_retries: 0\n  connector_call_timeout: 20s\n"
    );
}

TEST_CASE(
    "delete removes the Marathon group, the Chronos jobs and the Kubernetes namespace it created", "[e2e][sites]"
) {
    TwoSites sites;
    std::vector<std::pair<std::string, const SimProcess*>> created;
    std::string id;
    REQUIRE(
        sites.Deploy(
            orch::e2e::CorpusTemplate(kWebdav), {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}, id
        )["status"] == "CREATE_COMPLETE"
    );
    created.emplace_back(id, &sites.a);
    REQUIRE(
        sites.Deploy(
            KeplerWithGpu("V100"),
            KeplerInputs(),

            id
        )["status"] == "CREATE_COMPLETE"
    );
    created.emplace_back(id, &sites.b);
    REQUIRE(sites.Deploy(KubernetesWithGpu("Tesla T4"), Json::object(), id)["status"] == "CREATE_COMPLETE");
    created.emplace_back(id, &sites.a);

    const auto before_a = orch::e2e::ProviderObjects(sites.a.Objects());
    const auto before_b = orch::e2e::ProviderObjects(sites.b.Objects());
    for (const auto& [dep, sim] : created) {
        INFO(dep);
        CHECK(Holds(*sim, dep));
        REQUIRE(sites.api.Call("DELETE", "/deployments/" + dep).status == 204);
    }
    // What each kind left before the delete, so the emptiness below means something.
    auto kinds_of = [](const std::vector<std::string>& objects, const std::string& dep) {
        std::set<std::string> kinds;
        for (const auto& o : objects) {
            if (o.find(dep) != std::string::npos) {
                kinds.insert(o.substr(0, o.find(':')));
            }
        }
        return kinds;
    };
    CHECK(kinds_of(before_a, created[0].first).count("marathon-group") == 1);
    CHECK(kinds_of(before_a, created[0].first).count("marathon-app") == 1);
    CHECK(kinds_of(before_b, created[1].first).count("chronos-job") == 1);
    CHECK(kinds_of(before_a, created[2].first).count("kubernetes-namespaces") == 1);
    CHECK(kinds_of(before_a, created[2].first).count("kubernetes-deployments") == 1);

    for (const auto& [dep, sim] : created) {
        INFO(dep);
        const Json d = sites.api.WaitFor(dep, kDeleteDone, kDeployTimeout);
        CHECK(d["status"] == "DELETE_COMPLETE");
        CHECK_FALSE(Holds(*sim, dep));
    }
    CheckNoRejections(sites.a);
    CheckNoRejections(sites.b);
}

// Issue 25: GPU templates written with the shipped types (tosca/profiles/examples: Deployment,
// Job, CronJob importing /types/v1/orchestrator.yaml through the mirror map) route to Kubernetes,
// reach CREATE_COMPLETE on the simulator through the real binary with GPU limits and the model
// selector, and delete leaves nothing.
TEST_CASE("shipped-type GPU Deployment, Job and CronJob complete on Kubernetes and delete cleanly", "[e2e][sites]") {
    TwoSites sites;
    const auto example = [](const std::string& name) {
        return orch::test::ReadFile(orch::test::SourceDir() + "/tosca/profiles/examples/" + name);
    };
    std::vector<std::string> ids;
    for (const auto& [file, inputs] : std::vector<std::pair<std::string, Json>>{
             {"gpu_deployment.yaml", {{"gpu_model", "Tesla T4"}, {"replicas", 2}}},
             {"gpu_job.yaml", Json::object()},
             {"gpu_cronjob.yaml", Json::object()}}) {
        INFO(file);
        std::string id;
        const Json d = sites.Deploy(example(file), inputs, id);
        INFO(d.dump(2));
        REQUIRE(d["status"] == "CREATE_COMPLETE");
        CHECK(d["cloudProviderEndpoint"].value("deploymentType", "") == "KUBERNETES");
        ids.push_back(id);
    }
    const Json kube = sites.a.Objects()["kubernetes"];
    INFO(kube.dump());
    int gpu_pods = 0;
    for (const auto& pod : kube["pods"]) {
        if (pod["name"].get<std::string>().find("inference") != std::string::npos) {
            CHECK(pod["node"] == "gpu-a");  // the T4 node: the model selector was honoured
            ++gpu_pods;
        }
    }
    CHECK(gpu_pods == 2);
    for (const auto& id : ids) {
        INFO(id);
        CHECK((Holds(sites.a, id) || Holds(sites.b, id)));
        REQUIRE(sites.api.Call("DELETE", "/deployments/" + id).status == 204);
    }
    for (const auto& id : ids) {
        INFO(id);
        CHECK(sites.api.WaitFor(id, kDeleteDone, kDeployTimeout)["status"] == "DELETE_COMPLETE");
        CHECK_FALSE(Holds(sites.a, id));
        CHECK_FALSE(Holds(sites.b, id));
    }
    CheckNoRejections(sites.a);
    CheckNoRejections(sites.b);
}
