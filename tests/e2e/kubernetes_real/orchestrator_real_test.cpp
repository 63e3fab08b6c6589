// Issue 25 through the real binary on the real tier: the orchestrator, configured with a
// Kubernetes site whose endpoint is the real kube-apiserver 1.20 (scripts/kube/start), deploys the
// shipped GPU Deployment example (tosca/profiles/examples) to CREATE_COMPLETE, the pods carrying
// the GPU limit and the model's node selector; a scale past the site's GPUs is refused with 409
// in under a second (placement's capacity check, before the site is touched); delete leaves no
// namespace behind. The corpus HelmChart template (helm_minio.yaml) becomes a Flux v1 HelmRelease
// that reaches CREATE_COMPLETE once Flux (played by the test) reports it installed. The test plays
// the kubelet of the rig's nodes (fake_kubelet.hpp).
#include "../../integration/kubernetes_real/fake_kubelet.hpp"
#include "../../integration/kubernetes_real/kube_rig.hpp"
#include "../sites/site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

using orch::Json;
namespace rig = orch::test::kube;
namespace kubelet = orch::test::kube::kubelet;

constexpr auto kTimeout = std::chrono::seconds(120);
constexpr char kModel[] = "Tesla V100";

// The rig as a catalogue site: GPU capacity as the node has it, the model mapped onto the node's
// product label, the connector's token and the rig's CA as the service's credentials.
std::string ConfigFile() {
    const rig::Rig& r = rig::TheRig();
    const std::string catalogue =
        "providers:\n"
        "  - id: KUBE-REAL\n"
        "    name: kube-real\n"
        "    services:\n"
        "      KUBE-REAL_k8s:\n"
        "        service_type: eu.deep.kubernetes\n"
        "        endpoint: " +
        r.url +
        "\n"
        "        type: compute\n"
        "        iam_enabled: false\n"
        "        properties: {gpu_support: true, gpu_vendor: nvidia, gpu_model: \"" +
        kModel + "\", num_gpus: " + std::to_string(kubelet::kGpus) +
        ", gpu_resource: nvidia.com/gpu, gpu_product_label: nvidia.com/gpu.product, namespace_prefix: orch, "
        "worker_nodes_ip: [127.0.0.1], gpu_products: {\"" +
        kModel + "\": [" + kubelet::kGpuProduct + "]}}\n";
    const std::string credentials =
        "credentials:\n  KUBE-REAL_k8s: {token: \"" + r.token + "\", ca_file: \"" + r.ca_file + "\"}\n";
    return orch::e2e::WriteOrchestratorFiles(
        catalogue, orch::e2e::SlaYaml({{"KUBE-REAL", "KUBE-REAL_k8s", 1.0}}), "", credentials
    );
}

// The kubelet of the rig's nodes for namespace `ns`, a pass every 200 ms while the test runs.
class KubeletLoop {
   public:
    explicit KubeletLoop(std::string ns)
        : thread_([this, ns = std::move(ns)] {
              while (!stop_) {
                  try {
                      kubelet::Pass(ns);
                  } catch (const std::exception&) {
                      // The namespace is not there yet or is going; the next pass sees it.
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(200));
              }
          }) {}
    KubeletLoop(const KubeletLoop&) = delete;
    KubeletLoop& operator=(const KubeletLoop&) = delete;
    ~KubeletLoop() {
        stop_ = true;
        thread_.join();
    }

   private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// Waits until `path` exists on the server (the orchestrator creates it asynchronously).
bool AppearsOnServer(const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (rig::AdminCall("GET", path).status == 200) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

Json Parameters(int replicas) {
    return {{"gpu_model", kModel}, {"replicas", replicas}};
}

}  // namespace

TEST_CASE(
    "the real orchestrator deploys the shipped GPU Deployment onto the real API server, refuses a scale past the "
    "site's GPUs in under a second, and delete leaves nothing",
    "[e2e][kubernetes_real]"
) {
    rig::TheRig();  // skips when the control plane is not built
    kubelet::EnsureNodes();
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orchestrator(db.dsn(), {}, ConfigFile());
    orch::e2e::Api api(orchestrator.BaseUrl());
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));

    const std::string text =
        orch::test::ReadFile(orch::test::SourceDir() + "/tosca/profiles/examples/gpu_deployment.yaml");
    const auto created =
        api.Call("POST", "/deployments", Json{{"template", text}, {"parameters", Parameters(1)}}.dump());
    INFO(created.body);
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"].get<std::string>();
    const std::string ns = "orch-" + id;
    KubeletLoop kubelet_loop(ns);
    const Json done = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(done.dump());
    REQUIRE(done["status"] == "CREATE_COMPLETE");

    const auto pods = rig::AdminCall("GET", "/api/v1/namespaces/" + ns + "/pods");
    REQUIRE(pods.status == 200);
    REQUIRE(pods.body["items"].size() == 1);
    const Json& pod = pods.body["items"][0];
    CHECK(pod["spec"]["nodeName"] == kubelet::kGpuNode);
    CHECK(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1");
    CHECK(pod["spec"]["nodeSelector"]["nvidia.com/gpu.product"] == kubelet::kGpuProduct);

    // One GPU per replica: one replica more than the site's GPUs is refused before the site is asked.
    const auto start = std::chrono::steady_clock::now();
    const auto refused = api.Call(
        "PUT", "/deployments/" + id, Json{{"template", text}, {"parameters", Parameters(kubelet::kGpus + 1)}}.dump()
    );
    const auto elapsed = std::chrono::steady_clock::now() - start;
    INFO(refused.body);
    CHECK(refused.status == 409);
    CHECK(Json::parse(refused.body).value("message", "").find("GPU") != std::string::npos);
    CHECK(elapsed < std::chrono::seconds(1));
    const auto deployment = rig::AdminCall("GET", "/apis/apps/v1/namespaces/" + ns + "/deployments/inference");
    CHECK(deployment.body["spec"]["replicas"] == 1);  // the site was not touched

    REQUIRE(api.Call("DELETE", "/deployments/" + id).status == 204);
    CHECK(api.WaitFor(id, {"DELETE_COMPLETE", "DELETE_FAILED"}, kTimeout)["status"] == "DELETE_COMPLETE");
    CHECK(rig::AdminCall("GET", "/api/v1/namespaces/" + ns).status == 404);
}

TEST_CASE(
    "the real orchestrator deploys the corpus HelmChart template as a Flux v1 HelmRelease on the real API server, "
    "complete once Flux reports it installed, and delete leaves nothing",
    "[e2e][kubernetes_real][helm]"
) {
    rig::TheRig();  // skips when the control plane is not built
    kubelet::EnsureNodes();
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess orchestrator(db.dsn(), {}, ConfigFile());
    orch::e2e::Api api(orchestrator.BaseUrl());
    REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));

    const std::string text = orch::e2e::CorpusTemplate("indigo-dc-tosca-types/examples/helm_minio.yaml");
    const auto created =
        api.Call("POST", "/deployments", Json{{"template", text}, {"parameters", Json::object()}}.dump());
    INFO(created.body);
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"].get<std::string>();
    const std::string ns = "orch-" + id;
    const std::string release = "/apis/helm.fluxcd.io/v1/namespaces/" + ns + "/helmreleases/helm";
    REQUIRE(AppearsOnServer(release));
    const auto stored = rig::AdminCall("GET", release);
    CHECK(stored.body["spec"]["chart"]["name"] == "minio");
    CHECK(stored.body["spec"]["values"]["service"]["type"] == "NodePort");
    CHECK(api.Get(id).value_or(Json::object()).value("status", "") == "CREATE_IN_PROGRESS");
    orch::test::kube::flux::ReportInstalled(release, "v1");
    const Json done = api.WaitFor(id, {"CREATE_COMPLETE", "CREATE_FAILED"}, kTimeout);
    INFO(done.dump());
    CHECK(done["status"] == "CREATE_COMPLETE");

    REQUIRE(api.Call("DELETE", "/deployments/" + id).status == 204);
    CHECK(api.WaitFor(id, {"DELETE_COMPLETE", "DELETE_FAILED"}, kTimeout)["status"] == "DELETE_COMPLETE");
    CHECK(rig::AdminCall("GET", "/api/v1/namespaces/" + ns).status == 404);
}
