// The Kubernetes connector against a real kube-apiserver 1.20.2 with etcd, kube-scheduler and
// kube-controller-manager (scripts/kube/start). Two nodes are registered by the tests, which
// also play their kubelet (fake_kubelet.hpp): "gpu-node-1" with two nvidia.com/gpu, labelled
// nvidia.com/gpu.product=Tesla-V100-PCIE-16GB and tainted nvidia.com/gpu:NoSchedule, and
// "cpu-node-1". Scheduling, rollout and Job conditions, admission, validation and namespace
// deletion are the real server's.
#include "fake_kubelet.hpp"
#include "kube_checks.hpp"
#include "kube_rig.hpp"

#include <connectors/kubernetes_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace std::chrono_literals;
using orch::Json;
using orch::connectors::Failure;
using orch::connectors::FailureKind;
using orch::connectors::Handle;
using orch::connectors::KubernetesConnector;
using orch::connectors::Observation;
using orch::connectors::Phase;
using orch::connectors::SiteTarget;
using orch::tosca::NodeSpec;
namespace rig = orch::test::kube;
namespace kubelet = orch::test::kube::kubelet;
using orch::test::kube::CheckNothingDropped;
using orch::test::kube::ConditionStatus;
using orch::test::kube::CountStarted;
using orch::test::kube::DeleteAndWaitGone;
using orch::test::kube::Deployment;
using orch::test::kube::MustCreate;
using orch::test::kube::PodOf;
using orch::test::kube::Settled;

namespace {

NodeSpec Node(const std::string& name, std::string_view type, const std::string& image) {
    NodeSpec node;
    node.name = name;
    node.type = std::string(type);
    node.type_chain = {
        std::string(type),
        "tosca.nodes.indigo.Container.Application.Docker",
        "tosca.nodes.Container.Application",
        "tosca.nodes.Root"};
    node.image = image;
    node.host_node = name + "_runtime";
    node.resources.cpus = 0.5;
    node.resources.mem_mb = 256;
    return node;
}

NodeSpec WebApp(const std::string& name) {
    NodeSpec node = Node(name, orch::connectors::kKubernetesAppType, "nginx:1.25");
    node.ports.push_back({8080, std::nullopt, "tcp", "", ""});
    node.environment = {{"MODE", "prod"}};
    node.volumes.push_back({"/cache", "", "RW", "/cache:rw"});
    return node;
}

NodeSpec GpuApp(const std::string& name, int gpus, const std::string& model) {
    NodeSpec node = Node(name, orch::connectors::kKubernetesAppType, "tensorflow/tensorflow:2.15.0-gpu");
    node.resources.gpu.count = gpus;
    node.resources.gpu.model = model;
    return node;
}

NodeSpec BatchJob(const std::string& name) {
    NodeSpec node = Node(name, orch::connectors::kKubernetesJobType, "busybox:1.36");
    node.command = "echo done";
    return node;
}

}  // namespace

TEST_CASE(
    "real API server: a Deployment with its Service, a GPU Deployment and a Job become ready, scale, and a "
    "foreground delete removes the namespace",
    "[kubernetes_real]"
) {
    KubernetesConnector connector(rig::Clients());
    Deployment d({WebApp("web"), GpuApp("trainer", 1, "Tesla V100"), BatchJob("init")}, rig::TokenTarget());
    const Handle handle = MustCreate(connector, d.request);
    CHECK(handle.physical_id == "orch-" + d.request.deployment_id);

    Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 180s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    const Json ports = obs.attributes["web"]["service_ports"];
    REQUIRE(ports.size() == 1);
    const int node_port = ports.begin().value()["target"];
    CHECK(node_port >= 30000);
    CHECK(node_port <= 32767);
    CHECK(obs.attributes["web"]["endpoints"][0] == "127.0.0.1:" + std::to_string(node_port));
    CHECK(CountStarted(obs, "web") == 1);
    CHECK(CountStarted(obs, "trainer") == 1);
    CHECK(CountStarted(obs, "init") == 1);

    // What the real scheduler and controllers did with the objects the connector wrote.
    const std::string ns = handle.physical_id;
    const Json trainer = PodOf(ns, "trainer");
    CHECK(trainer["spec"]["nodeName"] == kubelet::kGpuNode);
    CHECK(trainer["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(trainer["spec"]["nodeSelector"]["nvidia.com/gpu.product"] == kubelet::kGpuProduct);
    // Without the GPU toleration the web pod can only land on the CPU node.
    CHECK(PodOf(ns, "web")["spec"]["nodeName"] == kubelet::kCpuNode);
    const auto deployment = rig::AdminCall("GET", "/apis/apps/v1/namespaces/" + ns + "/deployments/web");
    CHECK(ConditionStatus(deployment.body, "Available") == "True");
    const auto job = rig::AdminCall("GET", "/apis/batch/v1/namespaces/" + ns + "/jobs/init");
    CHECK(ConditionStatus(job.body, "Complete") == "True");

    CheckNothingDropped(d.request);

    // Scale and a new image at once: the real Deployment controller rolls out a new ReplicaSet.
    d.spec.nodes[0].count = 3;
    d.spec.nodes[0].image = "nginx:1.27";
    auto updated_result = connector.Update(handle, d.request);
    if (auto* failure = std::get_if<Failure>(&updated_result)) {
        FAIL("Update failed: " << failure->message);
    }
    const Handle updated = std::get<Handle>(updated_result);
    obs = rig::PollUntil(
        connector, updated, d.spec, [](const Observation& o) { return Settled(o) && CountStarted(o, "web") == 3; }, 180s
    );
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(CountStarted(obs, "web") == 3);
    CHECK(obs.attributes["web"]["service_ports"].begin().value()["target"] == node_port);
    const auto web_pods =
        rig::AdminCall("GET", "/api/v1/namespaces/" + ns + "/pods?labelSelector=app.kubernetes.io/name%3Dweb");
    int current = 0;
    for (const auto& pod : web_pods.body["items"]) {
        if (!pod["metadata"].contains("deletionTimestamp")) {
            CHECK(pod["spec"]["containers"][0]["image"] == "nginx:1.27");
            ++current;
        }
    }
    CHECK(current == 3);

    DeleteAndWaitGone(connector, updated, d.spec);
}

TEST_CASE(
    "real scheduler: more GPUs than any node has, or a GPU model no node has, means try another site",
    "[kubernetes_real]"
) {
    KubernetesConnector connector(rig::Clients());
    SECTION("Insufficient nvidia.com/gpu") {
        Deployment d({GpuApp("big", kubelet::kGpus + 2, "")}, rig::TokenTarget());
        const Handle handle = MustCreate(connector, d.request);
        const Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
        INFO(obs.reason);
        REQUIRE(obs.phase == Phase::kFailed);
        CHECK(obs.failure == FailureKind::kTryAnotherSite);
        CHECK(obs.reason.find("Insufficient nvidia.com/gpu") != std::string::npos);
        DeleteAndWaitGone(connector, handle, d.spec);
    }
    SECTION("no node with the GPU model") {
        Deployment d({GpuApp("a40", 1, "NVIDIA A40")}, rig::TokenTarget());
        const Handle handle = MustCreate(connector, d.request);
        const Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
        INFO(obs.reason);
        REQUIRE(obs.phase == Phase::kFailed);
        CHECK(obs.failure == FailureKind::kTryAnotherSite);
        CHECK(obs.reason.find("didn't match Pod's node affinity") != std::string::npos);
        DeleteAndWaitGone(connector, handle, d.spec);
    }
}

TEST_CASE(
    "real rollout: a new image for a GPU Deployment that holds every GPU of the node completes", "[kubernetes_real]"
) {
    KubernetesConnector connector(rig::Clients());
    NodeSpec trainer = GpuApp("trainer", 1, "Tesla V100");
    trainer.count = kubelet::kGpus;
    Deployment d({trainer}, rig::TokenTarget());
    const Handle handle = MustCreate(connector, d.request);
    Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    REQUIRE(CountStarted(obs, "trainer") == kubelet::kGpus);

    // A surge pod would need a third GPU that no node has: the rollout must replace pods in place.
    d.spec.nodes[0].image = "tensorflow/tensorflow:2.16.1-gpu";
    auto updated_result = connector.Update(handle, d.request);
    if (auto* failure = std::get_if<Failure>(&updated_result)) {
        FAIL("Update failed: " << failure->message);
    }
    const Handle updated = std::get<Handle>(updated_result);
    obs = rig::PollUntil(connector, updated, d.spec, Settled, 120s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    const auto pods = rig::AdminCall(
        "GET", "/api/v1/namespaces/" + handle.physical_id + "/pods?labelSelector=app.kubernetes.io/name%3Dtrainer"
    );
    int current = 0;
    for (const auto& pod : pods.body["items"]) {
        if (!pod["metadata"].contains("deletionTimestamp")) {
            CHECK(pod["spec"]["containers"][0]["image"] == "tensorflow/tensorflow:2.16.1-gpu");
            ++current;
        }
    }
    CHECK(current == kubelet::kGpus);
    DeleteAndWaitGone(connector, updated, d.spec);
}

TEST_CASE(
    "real scheduler: a GPU model standing for several products selects the GPU node through node affinity",
    "[kubernetes_real]"
) {
    KubernetesConnector connector(rig::Clients());
    SiteTarget target = rig::TokenTarget();
    target.options["gpu_products"] = {{"V100", {"Tesla-V100-SXM2-16GB", kubelet::kGpuProduct}}};
    Deployment d({GpuApp("v100", 1, "V100")}, target);
    const Handle handle = MustCreate(connector, d.request);
    const Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    const Json pod = PodOf(handle.physical_id, "v100");
    CHECK(pod["spec"]["nodeName"] == kubelet::kGpuNode);
    const Json terms =
        pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    CHECK(terms[0]["matchExpressions"][0]["values"].size() == 2);
    CheckNothingDropped(d.request);
    DeleteAndWaitGone(connector, handle, d.spec);
}

TEST_CASE(
    "real API server: create is idempotent, a node removed by an update loses its objects, and a create "
    "into a namespace still terminating is retried",
    "[kubernetes_real]"
) {
    KubernetesConnector connector(rig::Clients());
    Deployment d({WebApp("web"), WebApp("extra"), BatchJob("init")}, rig::TokenTarget());
    const Handle handle = MustCreate(connector, d.request);
    // A create re-run after a crash finds everything already there.
    CHECK(MustCreate(connector, d.request).physical_id == handle.physical_id);
    Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 180s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);

    const std::string ns = handle.physical_id;
    d.spec.nodes.erase(d.spec.nodes.begin() + 1);  // "extra" leaves the template
    auto updated_result = connector.Update(handle, d.request);
    if (auto* failure = std::get_if<Failure>(&updated_result)) {
        FAIL("Update failed: " << failure->message);
    }
    const Handle updated = std::get<Handle>(updated_result);
    obs = rig::PollUntil(
        connector,
        updated,
        d.spec,
        [&](const Observation& o) {
            return Settled(o) &&
                   rig::AdminCall("GET", "/apis/apps/v1/namespaces/" + ns + "/deployments/extra").status == 404 &&
                   rig::AdminCall("GET", "/api/v1/namespaces/" + ns + "/services/extra").status == 404;
        },
        120s
    );
    CHECK(obs.phase == Phase::kReady);
    CHECK(rig::AdminCall("GET", "/apis/apps/v1/namespaces/" + ns + "/deployments/extra").status == 404);
    CHECK(rig::AdminCall("GET", "/api/v1/namespaces/" + ns + "/services/extra").status == 404);
    CHECK(rig::AdminCall("GET", "/apis/apps/v1/namespaces/" + ns + "/deployments/web").status == 200);

    // The web pod keeps the namespace Terminating until the (fake) kubelet confirms its end, so a
    // create right after the delete meets the namespace lifecycle admission's refusal.
    auto deleted = connector.Delete(updated, false);
    REQUIRE(std::holds_alternative<orch::connectors::Deletion>(deleted));
    CHECK(std::get<orch::connectors::Deletion>(deleted) == orch::connectors::Deletion::kInProgress);
    auto again = connector.Create(d.request);
    REQUIRE(std::holds_alternative<Failure>(again));
    CHECK(std::get<Failure>(again).kind == FailureKind::kRetryHere);
    CHECK(std::get<Failure>(again).message.find("still terminating") != std::string::npos);
    DeleteAndWaitGone(connector, updated, d.spec);
    // Once the namespace is gone the same create succeeds.
    const Handle recreated = MustCreate(connector, d.request);
    CHECK(recreated.physical_id == ns);
    DeleteAndWaitGone(connector, recreated, d.spec);
}

TEST_CASE("real Job controller: a Job whose pod fails is failed after its retries", "[kubernetes_real]") {
    KubernetesConnector connector(rig::Clients());
    NodeSpec failing = BatchJob("failing");
    failing.environment = {{kubelet::kExitCodeVariable, "3"}};
    failing.properties = {{"retries", 0}};
    Deployment d({failing}, rig::TokenTarget());
    const Handle handle = MustCreate(connector, d.request);
    const Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.failure == FailureKind::kTryAnotherSite);
    CHECK(obs.reason.find("BackoffLimitExceeded") != std::string::npos);
    DeleteAndWaitGone(connector, handle, d.spec);
}

TEST_CASE("real API server: a scheduled node becomes a batch/v1beta1 CronJob", "[kubernetes_real]") {
    KubernetesConnector connector(rig::Clients());
    NodeSpec nightly = BatchJob("nightly");
    nightly.schedule = "R/2024-01-01T02:30:00Z/P1D";
    Deployment d({nightly}, rig::TokenTarget());
    const Handle handle = MustCreate(connector, d.request);
    const Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 60s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);
    const auto cron =
        rig::AdminCall("GET", "/apis/batch/v1beta1/namespaces/" + handle.physical_id + "/cronjobs/nightly");
    REQUIRE(cron.status == 200);
    CHECK(cron.body["spec"]["schedule"] == "30 2 * * *");
    CheckNothingDropped(d.request);

    d.spec.nodes[0].schedule = "R/2024-01-01T03:00:00Z/PT6H";
    auto updated = connector.Update(handle, d.request);
    if (auto* failure = std::get_if<Failure>(&updated)) {
        FAIL("Update failed: " << failure->message);
    }
    const auto changed =
        rig::AdminCall("GET", "/apis/batch/v1beta1/namespaces/" + handle.physical_id + "/cronjobs/nightly");
    CHECK(changed.body["spec"]["schedule"] == "0 3-23/6 * * *");  // 03:00, 09:00, 15:00, 21:00
    DeleteAndWaitGone(connector, handle, d.spec);
}

TEST_CASE(
    "real authentication: a client certificate works, a wrong token is refused as try another site", "[kubernetes_real]"
) {
    KubernetesConnector connector(rig::Clients());
    SECTION("client certificate") {
        // A TOSCA node name that is no DNS label: the names derived from it must pass the server.
        Deployment d({WebApp("Web_App.v2")}, rig::CertTarget());
        const Handle handle = MustCreate(connector, d.request);
        const Observation obs = rig::PollUntil(connector, handle, d.spec, Settled, 180s);
        INFO(obs.reason);
        REQUIRE(obs.phase == Phase::kReady);
        DeleteAndWaitGone(connector, handle, d.spec);
    }
    SECTION("wrong token") {
        SiteTarget target = rig::TokenTarget();
        target.credentials.bearer_token = "not-a-token-of-this-cluster";
        Deployment d({WebApp("web")}, target);
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
        CHECK(std::get<Failure>(created).message.find("401") != std::string::npos);
    }
    SECTION("no credentials: the anonymous user is forbidden") {
        SiteTarget target = rig::TokenTarget();
        target.credentials.bearer_token.clear();
        Deployment d({WebApp("web")}, target);
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
    }
}

TEST_CASE(
    "real API server: a Helm chart's Flux v1 and v2 objects pass the installed CRDs and are deleted",
    "[kubernetes_real][helm]"
) {
    // No Flux controller runs on this tier (scripts/kube/start installs the CRDs only): the
    // objects must be accepted as the connector writes them, show as waiting, and go with the
    // delete.
    KubernetesConnector connector(rig::Clients());
    for (const std::string flux : {"v1", "v2"}) {
        INFO(flux);
        NodeSpec chart;
        chart.name = "helm";
        chart.type = "tosca.nodes.indigo.Kubernetes.HelmChart";
        chart.type_chain = {chart.type, "tosca.nodes.Root"};
        chart.properties = {
            {"repository", "https://charts.bitnami.com/bitnami"},
            {"name", "minio"},
            {"version", "7.1.9"},
            {"values", "persistence:\n  enabled: false\nservice:\n  type: NodePort\n"}};
        SiteTarget target = rig::TokenTarget();
        target.options["flux_version"] = flux;
        Deployment d({chart}, target);
        const Handle handle = MustCreate(connector, d.request);
        const auto release = rig::AdminCall(
            "GET",
            std::string(flux == "v1" ? "/apis/helm.fluxcd.io/v1" : "/apis/helm.toolkit.fluxcd.io/v2beta1") +
                "/namespaces/" + handle.physical_id + "/helmreleases/helm"
        );
        REQUIRE(release.status == 200);
        CHECK(release.body["spec"]["values"]["persistence"]["enabled"] == false);  // kept, not pruned
        auto polled = connector.Poll(handle, d.spec);
        REQUIRE(std::holds_alternative<Observation>(polled));
        CHECK(std::get<Observation>(polled).phase == Phase::kInProgress);
        DeleteAndWaitGone(connector, handle, d.spec);
    }
}
