// Each connector against the site-sim binary over real HTTP on loopback: create, poll to ready
// with outputs, scale, delete, gone (checked in the simulator's own object listing), and every
// injected fault classified. The simulator validates every body against the schemas; the
// rejection log must stay empty for the connectors' own requests.
#include "test_support/site_sim_process.hpp"

#include <connectors/chronos_connector.hpp>
#include <connectors/kubernetes_connector.hpp>
#include <connectors/marathon_connector.hpp>
#include <connectors/site_client_factory.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

#include <thread>

using namespace orch::connectors;
using orch::Json;
using orch::sim::test::SiteSimProcess;
using orch::tosca::DeploymentKind;

namespace {

// Fast simulated time: a task or pod starts in 50 ms of real time.
const std::string kConfig = R"(
speed: 20
mesos_agents:
  - {hostname: cpu-1.site, cpus: 8, mem_mb: 16384, disk_mb: 100000}
  - {hostname: gpu-1.site, cpus: 8, mem_mb: 16384, disk_mb: 100000, gpus: 2, attributes: {gpu_type: nvidia-tesla-v100-pcie}}
kube_nodes:
  - {name: cpu-node, cpu: 8, memory_mb: 16384}
  - {name: gpu-node, cpu: 8, memory_mb: 16384, gpus: 2, gpu_product: Tesla-V100-PCIE-16GB, gpu_taint: true}
chronos: {gpu_support: true}
)";

struct Harness {
    explicit Harness(
        const std::string& config = kConfig, std::chrono::milliseconds timeout = std::chrono::milliseconds(2000)
    )
        : sim(config) {
        auto made = orch::http::MakeClient({});
        REQUIRE(made);
        client = std::move(*made);
        factory = std::make_unique<SharedClientFactory>(*client);
        CallOptions options;
        options.timeout = timeout;
        marathon = std::make_unique<MarathonConnector>(*factory, options);
        chronos = std::make_unique<ChronosConnector>(*factory, options);
        kubernetes = std::make_unique<KubernetesConnector>(*factory, options);
    }

    SiteTarget Target(TargetKind kind, const std::string& api, Json options = Json::object()) const {
        SiteTarget t;
        t.site_id = "SIM";
        t.kind = kind;
        t.endpoint = sim.Url(api);
        t.options = std::move(options);
        t.credentials.bearer_token = "t";
        return t;
    }

    SiteSimProcess sim;
    std::unique_ptr<orch::http::Client> client;
    std::unique_ptr<SharedClientFactory> factory;
    std::unique_ptr<MarathonConnector> marathon;
    std::unique_ptr<ChronosConnector> chronos;
    std::unique_ptr<KubernetesConnector> kubernetes;
};

template <typename T>
T Ok(ConnectorResult<T> r) {
    if (auto* f = std::get_if<Failure>(&r)) {
        FAIL("unexpected failure: " << f->message);
    }
    return std::get<T>(std::move(r));
}

template <typename T>
Failure Fails(ConnectorResult<T> r) {
    REQUIRE(std::holds_alternative<Failure>(r));
    return std::get<Failure>(std::move(r));
}

Observation PollUntil(
    Connector& c,
    const Handle& h,
    const orch::tosca::DeploymentSpec& spec,
    std::chrono::seconds limit = std::chrono::seconds(15)
) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    Observation obs;
    while (std::chrono::steady_clock::now() < deadline) {
        obs = Ok(c.Poll(h, spec));
        if (obs.phase != Phase::kInProgress) {
            return obs;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return obs;
}

orch::tosca::NodeSpec Node(const std::string& name, std::string_view type, const std::string& image) {
    orch::tosca::NodeSpec n;
    n.name = name;
    n.type = std::string(type);
    n.type_chain = {std::string(type), "tosca.nodes.indigo.Container.Application.Docker", "tosca.nodes.Root"};
    n.image = image;
    n.host_node = name + "_host";
    n.resources.cpus = 1;
    n.resources.mem_mb = 1024;
    return n;
}

orch::tosca::DeploymentSpec Spec(DeploymentKind kind, std::vector<orch::tosca::NodeSpec> nodes) {
    orch::tosca::DeploymentSpec s;
    s.kind = kind;
    s.nodes = std::move(nodes);
    return s;
}

DeployRequest Request(const std::string& id, const orch::tosca::DeploymentSpec& spec, SiteTarget target) {
    DeployRequest r;
    r.deployment_id = id;
    r.spec = &spec;
    r.target = std::move(target);
    return r;
}

}  // namespace

TEST_CASE("site-sim prints its ports, serves the admin API on each, and refuses bad arguments", "[integration][sim]") {
    SiteSimProcess sim;
    CHECK(sim.Port("marathon") != sim.Port("chronos"));
    CHECK(sim.Port("kubernetes") > 0);
    CHECK(sim.Admin("GET", "/__sim/health")["status"] == "ok");
    CHECK(sim.Admin("GET", "/__sim/objects").contains("kubernetes"));
    CHECK(SiteSimProcess::RunToExit({"--bogus", "1"}) == 2);
    CHECK(SiteSimProcess::RunToExit({"--marathon-port", "99999"}) == 2);
    CHECK(SiteSimProcess::RunToExit({"--config", "/nonexistent.yaml"}) == 2);
}

TEST_CASE("Marathon over HTTP: GPU app on the site's attribute, scale, delete, gone", "[integration][sim][marathon]") {
    Harness h;
    auto web = Node("web", kMarathonAppType, "nginx:1.25");
    web.ports.push_back({80, std::nullopt, "tcp", "", ""});
    auto gpu = Node("trainer", kMarathonAppType, "tensorflow/tensorflow:latest-gpu");
    gpu.resources.gpu.count = 1;
    gpu.resources.gpu.model = "Tesla V100";
    auto spec = Spec(DeploymentKind::kMarathon, {web, gpu});
    const auto target = h.Target(
        TargetKind::kMarathon, "marathon", {{"gpu_attribute", "gpu_type"}, {"load_balancer_ips", {"lb.site"}}}
    );
    const Handle handle = Ok(h.marathon->Create(Request("11111111-aaaa-bbbb-cccc-000000000001", spec, target)));
    Observation obs = PollUntil(*h.marathon, handle, spec);
    REQUIRE(obs.phase == Phase::kReady);
    bool gpu_on_gpu_agent = false;
    for (const auto& i : obs.instances) {
        gpu_on_gpu_agent = gpu_on_gpu_agent || (i.node == "trainer" && i.attributes["host"] == "gpu-1.site");
    }
    CHECK(gpu_on_gpu_agent);
    CHECK(obs.attributes["web_host"]["host"]["publish_ports"][0]["source"] == 80);

    spec.nodes[0].count = 2;
    Ok(h.marathon->Update(handle, Request(handle.deployment_id, spec, target)));
    obs = PollUntil(*h.marathon, handle, spec);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.instances.size() == 3);

    CHECK(Ok(h.marathon->Delete(handle, false)) == Deletion::kInProgress);
    CHECK(PollUntil(*h.marathon, handle, spec).phase == Phase::kGone);
    const Json objects = h.sim.Admin("GET", "/__sim/objects")["marathon"];
    CHECK(objects["apps"].empty());
    CHECK(objects["tasks"].empty());
    CHECK(h.sim.Admin("GET", "/__sim/rejections").empty());
}

TEST_CASE(
    "Chronos over HTTP: scheduled and dependent jobs, ready after their runs, deleted", "[integration][sim][chronos]"
) {
    Harness h;
    auto first = Node("prepare", kChronosJobType, "busybox:1.36");
    first.command = "echo prepare";
    first.schedule = "R1//PT1H";
    auto second = Node("train", kChronosJobType, "tensorflow/tensorflow:latest-gpu");
    second.command = "python train.py";
    second.depends_on = {"prepare"};
    second.resources.gpu.count = 1;
    const auto spec = Spec(DeploymentKind::kChronos, {first, second});
    const auto target = h.Target(TargetKind::kChronos, "chronos", {{"gpu_support", true}});
    const Handle handle = Ok(h.chronos->Create(Request("22222222-aaaa-bbbb-cccc-000000000002", spec, target)));
    const Observation obs = PollUntil(*h.chronos, handle, spec);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.instances.size() == 2);
    CHECK(Ok(h.chronos->Delete(handle, false)) == Deletion::kInProgress);
    CHECK(Ok(h.chronos->Poll(handle, spec)).phase == Phase::kGone);
    CHECK(h.sim.Admin("GET", "/__sim/objects")["chronos"]["jobs"].empty());
    CHECK(h.sim.Admin("GET", "/__sim/rejections").empty());
}

TEST_CASE(
    "Kubernetes over HTTP: namespace, Deployment + Service, GPU pod on the tainted node, Job; foreground delete",
    "[integration][sim][kubernetes]"
) {
    Harness h;
    auto web = Node("web", kKubernetesAppType, "nginx:1.25");
    web.ports.push_back({80, std::nullopt, "tcp", "", ""});
    auto gpu = Node("notebook", kKubernetesAppType, "jupyter/tensorflow-notebook:latest");
    gpu.resources.gpu.count = 1;
    gpu.resources.gpu.model = "Tesla V100-PCIE-16GB";
    auto job = Node("fetch", kKubernetesJobType, "busybox:1.36");
    job.command = "wget data";
    auto spec = Spec(DeploymentKind::kKubernetes, {web, gpu, job});
    const auto target = h.Target(TargetKind::kKubernetes, "kubernetes", {{"worker_nodes_ip", {"10.0.0.1"}}});
    const Handle handle = Ok(h.kubernetes->Create(Request("33333333-aaaa-bbbb-cccc-000000000003", spec, target)));
    Observation obs = PollUntil(*h.kubernetes, handle, spec);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.attributes["web"]["endpoints"][0].get<std::string>().rfind("10.0.0.1:3", 0) == 0);

    spec.nodes[0].count = 2;
    Ok(h.kubernetes->Update(handle, Request(handle.deployment_id, spec, target)));
    CHECK(PollUntil(*h.kubernetes, handle, spec).phase == Phase::kReady);

    CHECK(Ok(h.kubernetes->Delete(handle, false)) == Deletion::kInProgress);
    CHECK(PollUntil(*h.kubernetes, handle, spec).phase == Phase::kGone);
    const Json objects = h.sim.Admin("GET", "/__sim/objects")["kubernetes"];
    CHECK(objects["pods"].empty());
    CHECK_FALSE(objects.contains("namespaces"));
    CHECK(h.sim.Admin("GET", "/__sim/rejections").empty());
}

TEST_CASE("Kubernetes over HTTP: insufficient nvidia.com/gpu is 'try another site'", "[integration][sim][kubernetes]") {
    Harness h;
    auto big = Node("big", kKubernetesAppType, "tensorflow/tensorflow:latest-gpu");
    big.resources.gpu.count = 8;
    const auto spec = Spec(DeploymentKind::kKubernetes, {big});
    const Handle handle = Ok(h.kubernetes->Create(
        Request("44444444-aaaa-bbbb-cccc-000000000004", spec, h.Target(TargetKind::kKubernetes, "kubernetes"))
    ));
    const Observation obs = PollUntil(*h.kubernetes, handle, spec);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.failure == FailureKind::kTryAnotherSite);
    CHECK(obs.reason.find("Insufficient nvidia.com/gpu") != std::string::npos);
    Ok(h.kubernetes->Delete(handle, true));
}

TEST_CASE("injected faults over HTTP are classified for every connector", "[integration][sim][faults]") {
    Harness h(kConfig, std::chrono::milliseconds(400));
    auto web = Node("web", kMarathonAppType, "nginx:1.25");
    const auto marathon_spec = Spec(DeploymentKind::kMarathon, {web});
    auto job = Node("job", kChronosJobType, "busybox:1.36");
    job.command = "true";
    const auto chronos_spec = Spec(DeploymentKind::kChronos, {job});
    const auto kube_spec = Spec(DeploymentKind::kKubernetes, {Node("app", kKubernetesAppType, "nginx:1.25")});
    struct Case {
        Connector* connector;
        const orch::tosca::DeploymentSpec* spec;
        TargetKind kind;
        std::string api;
    };
    const std::vector<Case> cases = {
        {h.marathon.get(), &marathon_spec, TargetKind::kMarathon, "marathon"},
        {h.chronos.get(), &chronos_spec, TargetKind::kChronos, "chronos"},
        {h.kubernetes.get(), &kube_spec, TargetKind::kKubernetes, "kubernetes"},
    };
    int n = 0;
    for (const auto& c : cases) {
        const auto target = h.Target(c.kind, c.api);
        const auto request = [&] {
            return Request("fault-" + std::to_string(++n), *c.spec, target);
        };
        INFO(c.api);
        h.sim.Fault({{"api", c.api}, {"kind", "status"}, {"status", 503}});
        CHECK(Fails(c.connector->Create(request())).kind == FailureKind::kRetryHere);
        h.sim.Fault({{"api", c.api}, {"kind", "status"}, {"status", 500}});
        CHECK(Fails(c.connector->Create(request())).kind == FailureKind::kRetryHere);
        // The HTTP client retries once on a fresh connection when a pooled one is closed under
        // it, so a reset must happen twice to reach the connector.
        h.sim.Fault({{"api", c.api}, {"kind", "reset"}, {"times", 2}});
        CHECK(Fails(c.connector->Create(request())).kind == FailureKind::kRetryHere);
        h.sim.Fault({{"api", c.api}, {"kind", "slow"}, {"delay_ms", 700}});
        const Failure slow = Fails(c.connector->Create(request()));
        CHECK(slow.kind == FailureKind::kRetryHere);
        CHECK(slow.message.find("timed out") != std::string::npos);
        h.sim.Fault({{"api", c.api}, {"kind", "status"}, {"status", 403}});
        CHECK(Fails(c.connector->Create(request())).kind == FailureKind::kTryAnotherSite);
        const Handle handle = Ok(c.connector->Create(request()));
        h.sim.Fault({{"api", c.api}, {"method", "GET"}, {"kind", "malformed"}});
        CHECK(Fails(c.connector->Poll(handle, *c.spec)).kind == FailureKind::kRetryHere);
        Ok(c.connector->Delete(handle, true));
    }
    h.sim.Admin("DELETE", "/__sim/faults");

    // A Marathon site out of GPUs: every offer declined, so the deployment moves on.
    h.sim.Fault({{"api", "marathon"}, {"kind", "capacity"}, {"resource", "gpus"}});
    auto gpu = Node("gpu", kMarathonAppType, "tensorflow/tensorflow:latest-gpu");
    gpu.resources.gpu.count = 1;
    const auto gpu_spec = Spec(DeploymentKind::kMarathon, {gpu});
    const Handle gh =
        Ok(h.marathon->Create(Request("fault-gpu", gpu_spec, h.Target(TargetKind::kMarathon, "marathon"))));
    const Observation full = PollUntil(*h.marathon, gh, gpu_spec);
    CHECK(full.phase == Phase::kFailed);
    CHECK(full.failure == FailureKind::kTryAnotherSite);
    Ok(h.marathon->Delete(gh, true));
}

TEST_CASE(
    "a site that requires other credentials is 'try another site'; the sim rejects invalid bodies in the real shapes",
    "[integration][sim][auth]"
) {
    Harness h(kConfig + "auth: {tokens: [site-token]}\n");
    const auto spec = Spec(DeploymentKind::kMarathon, {Node("web", kMarathonAppType, "nginx:1.25")});
    auto target = h.Target(TargetKind::kMarathon, "marathon");
    const Failure refused = Fails(h.marathon->Create(Request("auth-1", spec, target)));
    CHECK(refused.kind == FailureKind::kTryAnotherSite);
    target.credentials.bearer_token = "site-token";
    Ok(h.marathon->Create(Request("auth-1", spec, target)));

    // A body Marathon would refuse: the 422 body has Marathon's shape and lands in the log.
    auto bad = Node("bad", kMarathonAppType, "nginx:1.25");
    bad.constraints = {{"hostname", "NEAR", "x"}};
    const auto bad_spec = Spec(DeploymentKind::kMarathon, {bad});
    const Failure invalid = Fails(h.marathon->Create(Request("auth-2", bad_spec, target)));
    CHECK(invalid.kind == FailureKind::kUserError);
    const Json rejections = h.sim.Admin("GET", "/__sim/rejections");
    REQUIRE(rejections.size() == 1);
    CHECK(Json::parse(rejections[0]["response"].get<std::string>())["message"] == "Object is not valid");
}
