// Issue 25 on the real tier: templates as users write them, built by the TOSCA engine exactly as a
// create request builds them, deployed through the connector onto the real kube-apiserver 1.20
// (scripts/kube/start): the corpus HelmChart template (helm_minio.yaml) as a Flux v1 and v2
// HelmRelease, and the shipped types profile's GPU examples (tosca/profiles/examples: Deployment,
// Job, CronJob) with a GPU model asked for. The GPU limits and the model's node selector are read
// back from the objects the real controllers made (pods, the CronJob's job template), and delete
// must leave nothing. A scale past the node's GPUs fails with the real scheduler's reason in
// under a second. The tests play the kubelet (fake_kubelet.hpp) and, for Helm, Flux's controller.
#include "fake_kubelet.hpp"
#include "kube_checks.hpp"
#include "kube_rig.hpp"

#include <tosca/engine.hpp>

#include <catch2/catch.hpp>
#include <test_support/connector_poll.hpp>
#include <test_support/test_env.hpp>

#include <chrono>
#include <filesystem>
#include <string>

using namespace std::chrono_literals;
using orch::Json;
using orch::connectors::FailureKind;
using orch::connectors::Handle;
using orch::connectors::KubernetesConnector;
using orch::connectors::Observation;
using orch::connectors::Phase;
using orch::connectors::SiteTarget;
namespace rig = orch::test::kube;
namespace kubelet = orch::test::kube::kubelet;

namespace {

// Imports resolve offline, as the server's mirror map resolves them: the INDIGO types from the
// corpus, the shipped profile (imported by the examples from the demo's address) from the tree.
const std::string kIndigoPrefix = "https://raw.githubusercontent.com/indigo-dc/tosca-types/";
const std::string kProfilePrefix = "http://127.0.0.1:8080/types/";
// The model the examples ask for; the rig's site maps it onto the GPU node's product label.
constexpr char kModel[] = "Tesla V100";

const orch::tosca::TemplateEngine& Engine() {
    static const orch::tosca::TemplateEngine engine = [] {
        orch::tosca::EngineOptions options;
        options.mirrors.push_back({kIndigoPrefix, orch::test::SharedDir() + "/tosca-corpus/indigo-dc-tosca-types/refs/"}
        );
        options.mirrors.push_back({kProfilePrefix, orch::test::SourceDir() + "/tosca/profiles/"});
        return orch::tosca::TemplateEngine(std::move(options));
    }();
    return engine;
}

// The spec a create request with `inputs` gets from `text`; it must route to Kubernetes.
orch::tosca::DeploymentSpec Build(const std::string& text, const std::string& name, const Json& inputs) {
    orch::tosca::TemplateRequest request;
    request.file_name = name;
    request.inputs = inputs;
    const auto check = Engine().Check(text, request);
    INFO(name);
    for (const auto& d : check.diagnostics) {
        UNSCOPED_INFO(d.message);
    }
    REQUIRE(check.spec.has_value());
    REQUIRE(check.spec->kind == orch::tosca::DeploymentKind::kKubernetes);
    return *check.spec;
}

std::string ExampleText(const std::string& file) {
    return orch::test::ReadFile(orch::test::SourceDir() + "/tosca/profiles/examples/" + file);
}

// A shipped example with a GPU model asked for beside its GPU count (the Job and CronJob
// examples ask for any model), as a user adapting them writes it.
std::string WithModel(std::string text) {
    const std::string count = "num_gpus: 1\n";
    const auto at = text.find(count);
    REQUIRE(at != std::string::npos);
    const auto line = text.rfind('\n', at) + 1;
    text.insert(at + count.size(), std::string(at - line, ' ') + "gpu_model: " + kModel + "\n");
    return text;
}

// What the GPU container asks of the node, wherever the pod spec is (a pod, a job template).
void CheckGpuPodSpec(const Json& pod_spec) {
    INFO(pod_spec.dump());
    CHECK(pod_spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(pod_spec["nodeSelector"]["nvidia.com/gpu.product"] == kubelet::kGpuProduct);
    CHECK(pod_spec["tolerations"][0]["key"] == "nvidia.com/gpu");
}

}  // namespace

TEST_CASE(
    "real API server: the corpus HelmChart template becomes a Flux v1 and a v2 HelmRelease the CRDs accept, "
    "ready once Flux reports it, and delete leaves nothing",
    "[kubernetes_real][helm][templates]"
) {
    const std::string text =
        orch::test::ReadFile(orch::test::SharedDir() + "/tosca-corpus/indigo-dc-tosca-types/examples/helm_minio.yaml");
    KubernetesConnector connector(rig::Clients());
    for (const std::string flux : {"v1", "v2"}) {
        INFO("flux " << flux);
        SiteTarget target = rig::TokenTarget();
        target.options["flux_version"] = flux;
        rig::Deployment d(Build(text, "helm_minio.yaml", Json::object()), target);
        const Handle handle = rig::MustCreate(connector, d.request);
        const std::string path =
            std::string(flux == "v1" ? "/apis/helm.fluxcd.io/v1" : "/apis/helm.toolkit.fluxcd.io/v2beta1") +
            "/namespaces/" + handle.physical_id + "/helmreleases/helm";
        const auto release = rig::AdminCall("GET", path);
        REQUIRE(release.status == 200);
        // The template's inputs, through get_input, as the chart's values (kept, not pruned).
        CHECK(release.body["spec"]["values"]["service"]["type"] == "NodePort");
        CHECK(release.body["spec"]["values"]["persistence"]["enabled"] == false);
        rig::CheckNothingDropped(d.request);
        if (flux == "v2") {
            const auto source = rig::AdminCall(
                "GET", "/apis/source.toolkit.fluxcd.io/v1beta2/namespaces/" + handle.physical_id + "/helmrepositories"
            );
            REQUIRE(source.status == 200);
            REQUIRE(source.body["items"].size() == 1);
            CHECK(source.body["items"][0]["spec"]["url"] == "https://charts.bitnami.com/bitnami");
        }

        Observation obs = rig::PollUntil(connector, handle, d.spec, rig::Settled, 2s);
        CHECK(obs.phase == Phase::kInProgress);  // no Flux here until the test plays it
        orch::test::kube::flux::ReportInstalled(path, flux);
        obs = rig::PollUntil(connector, handle, d.spec, rig::Settled, 30s);
        INFO(obs.reason);
        CHECK(obs.phase == Phase::kReady);
        rig::DeleteAndWaitGone(connector, handle, d.spec);
    }
}

TEST_CASE(
    "real API server: the shipped GPU Deployment, Job and CronJob examples carry nvidia.com/gpu limits and the "
    "model's node selector, and delete leaves nothing",
    "[kubernetes_real][templates]"
) {
    KubernetesConnector connector(rig::Clients());
    SECTION("Deployment: its pods run on the GPU node") {
        rig::Deployment d(
            Build(ExampleText("gpu_deployment.yaml"), "gpu_deployment.yaml", {{"gpu_model", kModel}, {"replicas", 2}}),
            rig::TokenTarget()
        );
        const Handle handle = rig::MustCreate(connector, d.request);
        const Observation obs = rig::PollUntil(connector, handle, d.spec, rig::Settled, 180s);
        INFO(obs.reason);
        REQUIRE(obs.phase == Phase::kReady);
        CHECK(rig::CountStarted(obs, "inference") == 2);
        const Json pod = rig::PodOf(handle.physical_id, "inference");
        CHECK(pod["spec"]["nodeName"] == kubelet::kGpuNode);
        CheckGpuPodSpec(pod["spec"]);
        rig::CheckNothingDropped(d.request);
        rig::DeleteAndWaitGone(connector, handle, d.spec);
    }
    SECTION("Job: its pod runs to completion on the GPU node") {
        rig::Deployment d(
            Build(WithModel(ExampleText("gpu_job.yaml")), "gpu_job.yaml", Json::object()), rig::TokenTarget()
        );
        const Handle handle = rig::MustCreate(connector, d.request);
        const Observation obs = rig::PollUntil(connector, handle, d.spec, rig::Settled, 180s);
        INFO(obs.reason);
        REQUIRE(obs.phase == Phase::kReady);
        const auto job = rig::AdminCall("GET", "/apis/batch/v1/namespaces/" + handle.physical_id + "/jobs/training");
        CHECK(rig::ConditionStatus(job.body, "Complete") == "True");
        const Json pod = rig::PodOf(handle.physical_id, "training");
        CHECK(pod["spec"]["nodeName"] == kubelet::kGpuNode);
        CheckGpuPodSpec(pod["spec"]);
        rig::CheckNothingDropped(d.request);
        rig::DeleteAndWaitGone(connector, handle, d.spec);
    }
    SECTION("CronJob: its job template asks for the GPU") {
        rig::Deployment d(
            Build(WithModel(ExampleText("gpu_cronjob.yaml")), "gpu_cronjob.yaml", Json::object()), rig::TokenTarget()
        );
        const Handle handle = rig::MustCreate(connector, d.request);
        const Observation obs = rig::PollUntil(connector, handle, d.spec, rig::Settled, 60s);
        INFO(obs.reason);
        REQUIRE(obs.phase == Phase::kReady);
        const auto cron =
            rig::AdminCall("GET", "/apis/batch/v1beta1/namespaces/" + handle.physical_id + "/cronjobs/nightly");
        REQUIRE(cron.status == 200);
        CHECK(cron.body["spec"]["schedule"] == "30 2 * * *");
        CheckGpuPodSpec(cron.body["spec"]["jobTemplate"]["spec"]["template"]["spec"]);
        rig::CheckNothingDropped(d.request);
        rig::DeleteAndWaitGone(connector, handle, d.spec);
    }
}

TEST_CASE(
    "real scheduler: scaling the shipped GPU Deployment past the node's GPUs fails in under a second with the "
    "scheduler's reason and says what it left",
    "[kubernetes_real][templates]"
) {
    KubernetesConnector connector(rig::Clients());
    rig::Deployment d(
        Build(ExampleText("gpu_deployment.yaml"), "gpu_deployment.yaml", {{"gpu_model", kModel}, {"replicas", 1}}),
        rig::TokenTarget()
    );
    const Handle handle = rig::MustCreate(connector, d.request);
    Observation obs = rig::PollUntil(connector, handle, d.spec, rig::Settled, 180s);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kReady);

    // One GPU per replica on a node with kGpus: one replica more than fits.
    for (auto& node : d.spec.nodes) {
        if (node.name == "inference") {
            node.count = kubelet::kGpus + 1;
        }
    }
    const auto started = std::chrono::steady_clock::now();
    const Handle scaled = rig::MustUpdate(connector, handle, d.request);
    // Polled every 100 ms, as the workflow's first polls are (workflow.first_poll).
    obs = orch::test::PollConnectorUntil(connector, scaled, d.spec, rig::Settled, 10s, 100ms, [&scaled] {
        kubelet::Pass(scaled.physical_id);
    });
    const auto elapsed = std::chrono::steady_clock::now() - started;
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.failure == FailureKind::kTryAnotherSite);
    CHECK(obs.reason.find("Insufficient nvidia.com/gpu") != std::string::npos);
    CHECK(obs.reason.find(" of 3 replicas running") != std::string::npos);  // what the scale left
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
    INFO("scale refused after " << ms << " ms");
    CHECK(ms < 1000);
    rig::DeleteAndWaitGone(connector, scaled, d.spec);
}
