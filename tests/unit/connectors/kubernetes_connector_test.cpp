#include "connector_test_util.hpp"

#include <connectors/kubernetes_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;
using orch::tosca::DeploymentKind;

namespace {

constexpr char kDeployment[] = "33ed8ab3-6a40-968a-82b7-62f0862dbe46";

orch::tosca::NodeSpec KubeApp(const std::string& name) {
    auto node = AppNode(name, std::string(kKubernetesAppType));
    node.ports.push_back({8080, std::nullopt, "tcp", "", ""});
    node.environment = {{"MODE", "prod"}};
    node.volumes.push_back({"/cache", "", "RW", "/cache:rw"});
    node.command = "nginx";
    node.arguments = {"-g", "daemon off;"};
    return node;
}

orch::tosca::NodeSpec KubeGpuApp(const std::string& name, int gpus, const std::string& model) {
    auto node = AppNode(name, std::string(kKubernetesAppType), "tensorflow/tensorflow:2.15.0-gpu");
    node.resources.gpu.count = gpus;
    node.resources.gpu.model = model;
    return node;
}

orch::tosca::NodeSpec KubeJob(const std::string& name) {
    auto node = AppNode(name, std::string(kKubernetesJobType), "busybox:1.36");
    node.command = "echo done";
    node.type_chain = {
        std::string(kKubernetesJobType), "tosca.nodes.indigo.Container.Application.Docker", "tosca.nodes.Root"};
    return node;
}

struct Fixture {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    KubernetesConnector connector{factory};
    SiteTarget target = Target(
        TargetKind::kKubernetes,
        "http://k8s.sim:6443",
        {{"worker_nodes_ip", {"10.16.0.11"}}, {"namespace_prefix", "paas"}}
    );
};

std::string SchemaFor(const std::string& kind) {
    if (kind == "Namespace")
        return "namespace-v1.json";
    if (kind == "Deployment")
        return "deployment-apps-v1.json";
    if (kind == "Service")
        return "service-v1.json";
    if (kind == "Job")
        return "job-batch-v1.json";
    return "cronjob-batch-v1beta1.json";
}

}  // namespace

TEST_CASE(
    "Kubernetes objects for apps, GPU apps, jobs and schedules validate against the 1.20 schemas",
    "[connectors][kubernetes]"
) {
    auto cron = KubeJob("nightly");
    cron.schedule = "R/2024-01-01T02:30:00Z/P1D";
    auto multi = KubeGpuApp("multi", 1, "A100");
    const auto spec = SpecOf(
        DeploymentKind::kKubernetes,
        {KubeApp("web_app"), KubeGpuApp("trainer", 2, "Tesla V100-PCIE-16GB"), KubeJob("batch"), cron, multi}
    );
    auto target = Target(
        TargetKind::kKubernetes,
        "http://k",
        {{"gpu_products", {{"a100", {"NVIDIA-A100-SXM4-40GB", "NVIDIA-A100-PCIE-40GB"}}}}}
    );
    const auto manifests = Ok(BuildKubernetesManifests(Request(kDeployment, spec, target)));
    REQUIRE(manifests.size() == 7);  // namespace, web + service, trainer, batch, nightly, multi
    for (const auto& m : manifests) {
        auto violations = Schemas()->Validate(SchemaFor(m.kind), m.body);
        REQUIRE(violations);
        INFO(m.kind << " " << m.name << ": " << orch::sim::DescribeViolations(*violations));
        CHECK(violations->empty());
    }
    CHECK(manifests[0].name == std::string("orch-") + kDeployment);
    const Json web = manifests[1].body["spec"]["template"]["spec"]["containers"][0];
    CHECK(manifests[1].name == "web-app");
    CHECK(web["command"] == Json({"/bin/sh", "-c", "nginx '-g' 'daemon off;'"}));
    CHECK(web["resources"]["requests"]["cpu"] == "500m");
    CHECK(web["resources"]["requests"]["memory"] == "512Mi");
    CHECK(manifests[2].kind == "Service");
    CHECK(manifests[2].body["spec"]["type"] == "NodePort");
    const Json trainer = manifests[3].body["spec"]["template"]["spec"];
    CHECK(trainer["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 2);
    CHECK(trainer["nodeSelector"]["nvidia.com/gpu.product"] == "Tesla-V100-PCIE-16GB");
    CHECK(trainer["tolerations"][0]["key"] == "nvidia.com/gpu");
    CHECK(manifests[4].kind == "Job");
    CHECK(manifests[4].body["spec"]["template"]["spec"]["restartPolicy"] == "Never");
    CHECK(manifests[5].kind == "CronJob");
    CHECK(manifests[5].body["spec"]["schedule"] == "30 2 * * *");
    const Json affinity = manifests[6].body["spec"]["template"]["spec"]["affinity"];
    CHECK(affinity.dump().find("NVIDIA-A100-PCIE-40GB") != std::string::npos);
}

TEST_CASE(
    "Kubernetes: GPU Deployments roll out one pod at a time without a surge pod, others keep the default",
    "[connectors][kubernetes]"
) {
    // A surge pod needs a GPU nobody frees: on a full GPU node the real scheduler leaves it
    // Unschedulable and the rollout never ends (integration.kubernetes_real "real rollout ...").
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {KubeGpuApp("trainer", 1, ""), KubeApp("web")});
    const auto manifests =
        Ok(BuildKubernetesManifests(Request(kDeployment, spec, Target(TargetKind::kKubernetes, "http://k"))));
    REQUIRE(manifests.size() == 4);  // namespace, trainer, web + service
    REQUIRE(manifests[1].name == "trainer");
    const Json strategy = manifests[1].body["spec"]["strategy"];
    CHECK(strategy["type"] == "RollingUpdate");
    CHECK(strategy["rollingUpdate"]["maxSurge"] == 0);
    CHECK(strategy["rollingUpdate"]["maxUnavailable"] == 1);
    auto violations = Schemas()->Validate("deployment-apps-v1.json", manifests[1].body);
    REQUIRE(violations);
    CHECK(violations->empty());
    REQUIRE(manifests[2].name == "web");
    CHECK_FALSE(manifests[2].body["spec"].contains("strategy"));
}

TEST_CASE("ISO 8601 repeating intervals become cron schedules where cron can say it", "[connectors][kubernetes]") {
    CHECK(Ok(IsoScheduleToCron("R/2024-01-01T00:00:00Z/PT15M")) == "*/15 * * * *");
    CHECK(Ok(IsoScheduleToCron("R5/2024-01-01T00:07:00Z/PT15M")) == "7-59/15 * * * *");
    CHECK(Ok(IsoScheduleToCron("R//PT6H")) == "0 */6 * * *");
    CHECK(Ok(IsoScheduleToCron("R/2024-03-05T08:45:00Z/P1D")) == "45 8 * * *");
    CHECK(Ok(IsoScheduleToCron("R/2024-03-05T08:45:00Z/P1W")) == "45 8 * * 2");  // a Tuesday
    CHECK(Ok(IsoScheduleToCron("R/2024-03-05T08:45:00Z/P1M")) == "45 8 5 * *");
    CHECK(Ok(IsoScheduleToCron("*/5 * * * *")) == "*/5 * * * *");
    CHECK(Ok(IsoScheduleToCron("@hourly")) == "@hourly");
    CHECK(Fails(IsoScheduleToCron("R/2024-01-01T00:00:00Z/PT7M")).kind == FailureKind::kUserError);
    CHECK(Fails(IsoScheduleToCron("every day")).kind == FailureKind::kUserError);
    CHECK(Fails(IsoScheduleToCron("R/xx/PT1H")).kind == FailureKind::kUserError);
}

TEST_CASE(
    "Kubernetes: create, ready with node ports, scale, foreground delete, gone, nothing left",
    "[connectors][kubernetes]"
) {
    Fixture f;
    auto spec = SpecOf(
        DeploymentKind::kKubernetes, {KubeApp("web"), KubeGpuApp("trainer", 1, "Tesla V100-PCIE-16GB"), KubeJob("init")}
    );
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    CHECK(handle.physical_id == std::string("paas-") + kDeployment);
    Observation obs = Ok(f.connector.Poll(handle, spec));
    CHECK(obs.phase == Phase::kInProgress);
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    const Json ports = obs.attributes["web"]["service_ports"];
    REQUIRE(ports.size() == 1);
    const int node_port = ports.begin().value()["target"];
    CHECK(node_port >= 30000);
    CHECK(obs.attributes["web_runtime"]["host"]["publish_ports"][0]["target"] == node_port);
    CHECK(obs.attributes["web"]["endpoints"][0] == "10.16.0.11:" + std::to_string(node_port));
    CHECK(obs.instances.size() == 3);

    spec.nodes[0].count = 3;
    const Handle updated = Ok(f.connector.Update(handle, Request(kDeployment, spec, f.target)));
    obs = PollUntilSettled(f.connector, updated, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.attributes["web"]["service_ports"].begin().value()["target"] == node_port);  // node port kept
    int web_pods = 0;
    for (const auto& i : obs.instances) {
        web_pods += i.node == "web" && i.state == InstanceStatus::kStarted ? 1 : 0;
    }
    CHECK(web_pods == 3);

    CHECK(Ok(f.connector.Delete(updated, false)) == Deletion::kInProgress);
    obs = Ok(f.connector.Poll(updated, spec));
    CHECK(obs.phase == Phase::kInProgress);
    obs = PollUntilSettled(f.connector, updated, spec, *f.site);
    CHECK(obs.phase == Phase::kGone);
    const Json objects = f.site->Objects()["kubernetes"];
    CHECK(objects["pods"].empty());
    CHECK_FALSE(objects.contains("namespaces"));
    CHECK(f.site->Rejections().empty());
    for (const auto& request : f.client.Sent()) {
        if (request.method == "DELETE") {
            CHECK(Json::parse(request.body)["propagationPolicy"] == "Foreground");
        }
    }
}

TEST_CASE("Kubernetes: insufficient GPUs or no matching GPU model means try another site", "[connectors][kubernetes]") {
    Fixture f;
    const auto big = SpecOf(DeploymentKind::kKubernetes, {KubeGpuApp("big", 4, "")});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, big, f.target)));
    const Observation obs = PollUntilSettled(f.connector, handle, big, *f.site);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.failure == FailureKind::kTryAnotherSite);
    CHECK(obs.reason.find("Insufficient nvidia.com/gpu") != std::string::npos);

    const auto model = SpecOf(DeploymentKind::kKubernetes, {KubeGpuApp("model", 1, "NVIDIA A40")});
    const Handle h2 = Ok(f.connector.Create(Request("dep-a40", model, f.target)));
    const Observation unmatched = PollUntilSettled(f.connector, h2, model, *f.site);
    REQUIRE(unmatched.phase == Phase::kFailed);
    CHECK(unmatched.failure == FailureKind::kTryAnotherSite);
    CHECK(unmatched.reason.find("didn't match Pod's node affinity") != std::string::npos);

    REQUIRE(f.site->AddFault({{"api", "kubernetes"}, {"kind", "capacity"}, {"resource", "gpus"}}));
    const auto fits = SpecOf(DeploymentKind::kKubernetes, {KubeGpuApp("fits", 1, "")});
    const Handle h3 = Ok(f.connector.Create(Request("dep-capacity", fits, f.target)));
    CHECK(PollUntilSettled(f.connector, h3, fits, *f.site).failure == FailureKind::kTryAnotherSite);
}

TEST_CASE(
    "Kubernetes: Unschedulable is waiting while pods terminate or a rollout runs, a verdict on a first rollout",
    "[connectors][kubernetes]"
) {
    // The real 1.20 scheduler during a GPU rollout: the old pod keeps its GPU until its kubelet
    // confirms the end, so the new one is Unschedulable meanwhile and a little after
    // (integration.kubernetes_real "real rollout ...").
    ScriptedHttpClient client;
    SharedClientFactory factory(client);
    KubernetesConnector connector(factory);
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {KubeGpuApp("trainer", 1, "")});
    Handle handle;
    handle.deployment_id = kDeployment;
    handle.target = Target(TargetKind::kKubernetes, "http://k");
    handle.physical_id = KubernetesNamespace(kDeployment, handle.target);
    const Json ns = {{"metadata", {{"name", handle.physical_id}}}, {"status", {{"phase", "Active"}}}};
    Json deployment = {
        {"metadata", {{"name", "trainer"}, {"generation", 1}}},
        {"spec", {{"replicas", 1}}},
        {"status", {{"observedGeneration", 2}, {"replicas", 1}, {"updatedReplicas", 1}, {"availableReplicas", 0}}}};
    const auto pod = [](const std::string& name, bool terminating) {
        Json p = {
            {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/name", "trainer"}}}}},
            {"status",
             {{"phase", "Pending"},
              {"conditions",
               {{{"type", "PodScheduled"},
                 {"status", "False"},
                 {"reason", "Unschedulable"},
                 {"message", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}}}}}}};
        if (terminating) {
            p["metadata"]["deletionTimestamp"] = "2026-11-26T09:00:00Z";
            p["status"] = {{"phase", "Running"}};
        }
        return p;
    };
    const auto script = [&](const Json& pods) {
        client.PushStatus(200, ns.dump());
        client.PushStatus(200, Json{{"items", pods}}.dump());
        client.PushStatus(200, deployment.dump());
    };

    script(Json::array({pod("trainer-old", true), pod("trainer-new", false)}));
    const Observation waiting = Ok(connector.Poll(handle, spec));
    CHECK(waiting.phase == Phase::kInProgress);
    CHECK(waiting.reason.find("waiting for 1 terminating pod(s)") != std::string::npos);

    script(Json::array({pod("trainer-new", false)}));
    const Observation failed = Ok(connector.Poll(handle, spec));
    CHECK(failed.phase == Phase::kFailed);
    CHECK(failed.failure == FailureKind::kTryAnotherSite);
    CHECK(failed.reason.find("Insufficient nvidia.com/gpu") != std::string::npos);

    // After an update (generation 2) the old pod may just have gone and the scheduler not yet
    // retried: the Deployment's progress deadline is the verdict then.
    deployment["metadata"]["generation"] = 2;
    deployment["status"]["observedGeneration"] = 2;
    script(Json::array({pod("trainer-new", false)}));
    const Observation rollout = Ok(connector.Poll(handle, spec));
    CHECK(rollout.phase == Phase::kInProgress);
    CHECK(rollout.reason.find("progress deadline") != std::string::npos);
}

TEST_CASE("Kubernetes: a crash-looping pod says the application cannot start", "[connectors][kubernetes]") {
    Fixture f;
    auto app = KubeApp("crasher");
    app.environment = {{"SIM_EXIT_CODE", "1"}};
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {app});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    Observation obs;
    for (int i = 0; i < 20 && !obs.cannot_start; ++i) {
        f.site->AdvanceClock(1.0);
        obs = Ok(f.connector.Poll(handle, spec));
    }
    CHECK(obs.phase == Phase::kInProgress);  // the site keeps restarting it; the workflow's limit decides
    REQUIRE(obs.cannot_start);
    REQUIRE(obs.site_message);
    CHECK(obs.site_message->find("CrashLoopBackOff") != std::string::npos);
}

TEST_CASE("Kubernetes jobs: complete, or fail after their retries", "[connectors][kubernetes]") {
    Fixture f;
    auto failing = KubeJob("failing");
    failing.environment = {{"SIM_EXIT_CODE", "1"}};
    failing.properties = {{"retries", 0}};
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {failing});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.target)));
    const Observation obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.reason.find("BackoffLimitExceeded") != std::string::npos);

    auto cron = KubeJob("nightly");
    cron.schedule = "R/2024-01-01T00:00:00Z/PT5M";
    const auto cron_spec = SpecOf(DeploymentKind::kKubernetes, {cron});
    const Handle ch = Ok(f.connector.Create(Request("dep-cron", cron_spec, f.target)));
    CHECK(Ok(f.connector.Poll(ch, cron_spec)).phase == Phase::kReady);
}

TEST_CASE(
    "Kubernetes: user errors, idempotent create after a failure, faults, credentials", "[connectors][kubernetes]"
) {
    Fixture f;
    auto helm = AppNode("chart", std::string(kHelmChartType));  // no repository / chart name
    const auto helm_spec = SpecOf(DeploymentKind::kKubernetes, {helm});
    CHECK(Fails(f.connector.Create(Request(kDeployment, helm_spec, f.target))).kind == FailureKind::kUserError);
    auto first = KubeJob("first");
    auto second = KubeJob("second");
    second.depends_on = {"first"};
    const auto chained = SpecOf(DeploymentKind::kKubernetes, {first, second});
    CHECK(Fails(f.connector.Create(Request(kDeployment, chained, f.target))).kind == FailureKind::kUserError);
    auto external = KubeApp("ext");
    external.volumes = {{"/data", "", "RW", "vol:/data:rw:dvdi:rexray"}};
    const auto external_spec = SpecOf(DeploymentKind::kKubernetes, {external});
    CHECK(Fails(f.connector.Create(Request(kDeployment, external_spec, f.target))).kind == FailureKind::kUserError);

    const auto spec = SpecOf(DeploymentKind::kKubernetes, {KubeApp("web")});
    REQUIRE(f.site->AddFault({{"api", "kubernetes"}, {"method", "POST"}, {"kind", "reset"}, {"skip", 1}}));
    CHECK(Fails(f.connector.Create(Request(kDeployment, spec, f.target))).kind == FailureKind::kRetryHere);
    const Handle handle =
        Ok(f.connector.Create(Request(kDeployment, spec, f.target)));  // namespace already there: fine
    CHECK(PollUntilSettled(f.connector, handle, spec, *f.site).phase == Phase::kReady);

    REQUIRE(f.site->AddFault({{"api", "kubernetes"}, {"method", "GET"}, {"kind", "status"}, {"status", 503}}));
    CHECK(Fails(f.connector.Poll(handle, spec)).kind == FailureKind::kRetryHere);
    REQUIRE(f.site->AddFault({{"api", "kubernetes"}, {"method", "GET"}, {"kind", "malformed"}}));
    CHECK(Fails(f.connector.Poll(handle, spec)).kind == FailureKind::kRetryHere);
    CHECK(Fails(f.connector.Act(handle, "pod", "stop")).kind == FailureKind::kUserError);

    auto config = orch::sim::SimConfig::Default();
    config.tokens = {"cluster-token"};
    auto site = StillSite(config);
    SimHttpClient client(*site);
    SharedClientFactory factory(client);
    KubernetesConnector secured(factory);
    const Failure refused = Fails(secured.Create(Request(kDeployment, spec, f.target)));
    CHECK(refused.kind == FailureKind::kTryAnotherSite);
    auto good = f.target;
    good.credentials.bearer_token = "cluster-token";
    Ok(secured.Create(Request(kDeployment, spec, good)));
}

TEST_CASE("per-site HTTP clients for private CAs and client certificates", "[connectors][tls]") {
    ScriptedHttpClient shared;
    TlsClientFactory factory(shared, orch::http::ClientOptions{});
    SiteTarget plain = Target(TargetKind::kKubernetes, "https://k");
    auto client = Ok(factory.ClientFor(plain));
    CHECK(client.get() == &shared);
    SiteTarget bad_ca = plain;
    bad_ca.credentials.ca_file = "/nonexistent/ca.pem";
    const Failure ca = Fails(factory.ClientFor(bad_ca));
    CHECK(ca.kind == FailureKind::kTryAnotherSite);
    CHECK(ca.message.find("/nonexistent/ca.pem") != std::string::npos);
    SiteTarget half = plain;
    half.credentials.client_cert_file = "/etc/cert.pem";
    CHECK(Fails(factory.ClientFor(half)).message.find("both the certificate and the key") != std::string::npos);
    SiteTarget cert = half;
    cert.credentials.client_key_file = "/etc/key.pem";
    auto with_cert = factory.ClientFor(cert);
    if (!TlsClientFactory::SupportsClientCertificates()) {
        CHECK(Fails(std::move(with_cert)).message.find("client-certificate authentication") != std::string::npos);
    } else {
        CHECK(std::holds_alternative<Failure>(with_cert));  // the files do not exist
    }
}

// Issue 25: the shipped types' Deployment/Job/CronJob with GPUs, persistent volumes (one claim
// each) and secrets by reference, checked against the 1.20 schemas and run on the simulator.
TEST_CASE(
    "Kubernetes: shipped-type workloads with GPUs, volume claims and secret references", "[connectors][kubernetes]"
) {
    auto web = KubeGpuApp("web", 1, "Tesla V100-PCIE-16GB");  // a model the simulated site has
    web.type = std::string(kKubernetesDeploymentType);
    web.type_chain = {web.type, "tosca.nodes.indigo.Kubernetes.Workload", "tosca.nodes.Root"};
    web.volumes.clear();
    web.properties = {
        {"volumes",
         Json::array({{{"name", "data"}, {"mount_path", "/data"}, {"size", "1 GiB"}, {"read_only", false}}})},
        {"secrets",
         Json::array(
             {{{"secret", "api-token"}, {"key", "token"}, {"env", "API_TOKEN"}},
              {{"secret", "tls"}, {"mount_path", "/etc/tls"}}}
         )}};
    auto job = KubeJob("train");
    job.resources.gpu.count = 1;
    auto cron = KubeJob("nightly");
    cron.schedule = "30 2 * * *";
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {web, job, cron});
    const auto manifests =
        Ok(BuildKubernetesManifests(Request(kDeployment, spec, Target(TargetKind::kKubernetes, "http://k"))));
    REQUIRE(manifests.size() == 5);  // namespace, claim, web, train, nightly
    REQUIRE(manifests[1].kind == "PersistentVolumeClaim");
    CHECK(manifests[1].name == "web-data");
    CHECK(manifests[1].body["spec"]["resources"]["requests"]["storage"] == "1073741824");
    CHECK(manifests[1].body["spec"]["accessModes"] == Json::array({"ReadWriteOnce"}));
    for (const auto& m : manifests) {
        const std::string schema =
            m.kind == "PersistentVolumeClaim" ? "persistentvolumeclaim-v1.json" : SchemaFor(m.kind);
        auto violations = Schemas()->Validate(schema, m.body);
        REQUIRE(violations);
        INFO(m.kind << " " << m.name << ": " << orch::sim::DescribeViolations(*violations));
        CHECK(violations->empty());
    }
    const Json pod = manifests[2].body["spec"]["template"]["spec"];
    const Json container = pod["containers"][0];
    CHECK(container["resources"]["limits"]["nvidia.com/gpu"] == 1);
    CHECK(pod["nodeSelector"]["nvidia.com/gpu.product"] == "Tesla-V100-PCIE-16GB");
    CHECK(pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "web-data");
    CHECK(pod["volumes"][1]["secret"]["secretName"] == "tls");
    CHECK(container["volumeMounts"].size() == 2);
    const Json by_reference = {{"name", "api-token"}, {"key", "token"}};
    CHECK(container["env"].dump().find(by_reference.dump()) != std::string::npos);
    CHECK(manifests[3].kind == "Job");
    CHECK(manifests[3].body["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 1);
    CHECK(manifests[4].kind == "CronJob");

    // A reference that says neither where nor which key is the user's mistake.
    auto bad = web;
    bad.properties["secrets"] = Json::array({{{"secret", "api-token"}, {"env", "TOKEN"}}});
    const Failure refused = Fails(BuildKubernetesManifests(
        Request(kDeployment, SpecOf(DeploymentKind::kKubernetes, {bad}), Target(TargetKind::kKubernetes, "http://k"))
    ));
    CHECK(refused.kind == FailureKind::kUserError);
    CHECK(refused.message.find("secret reference") != std::string::npos);

    // On the simulator: created, ready, and nothing left after delete (the claim included).
    Fixture f;
    const auto run = SpecOf(DeploymentKind::kKubernetes, {web});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, run, f.target)));
    Observation obs = PollUntilSettled(f.connector, handle, run, *f.site);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(f.site->Objects()["kubernetes"].dump().find("web-data") != std::string::npos);
    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kInProgress);
    obs = PollUntilSettled(f.connector, handle, run, *f.site);
    CHECK(obs.phase == Phase::kGone);
    CHECK(f.site->Objects()["kubernetes"].dump().find("web-data") == std::string::npos);
    CHECK(f.site->Rejections().empty());
}

TEST_CASE("Kubernetes names its version from /version", "[connectors][kubernetes]") {
    Fixture f;
    const auto version = f.connector.SiteVersion(f.target);
    REQUIRE(std::holds_alternative<std::string>(version));
    CHECK(std::get<std::string>(version) == "Kubernetes v1.20.2");  // site-sim's gitVersion
}
