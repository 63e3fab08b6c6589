#include "connector_test_util.hpp"

#include <connectors/kubernetes_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;
using orch::tosca::DeploymentKind;

namespace {

constexpr char kDeployment[] = "9b2c7f1e-55aa-4c1b-8f0e-1d2e3f4a5b6c";

// The corpus example helm_minio.yaml, as the engine resolves it.
constexpr char kMinioValues[] =
    "accessKey:\n  password: MY_ACCESS_KEY\nsecretKey:\n  password: MY_SECRET_KEY\n"
    "persistence:\n  enabled: false\nservice:\n  type: NodePort\n";

orch::tosca::NodeSpec Chart(const std::string& values = kMinioValues) {
    orch::tosca::NodeSpec node;
    node.name = "helm";
    node.type = std::string(kHelmChartType);
    node.type_chain = {node.type, "tosca.nodes.Root"};
    node.properties = {
        {"repository", "https://charts.bitnami.com/bitnami"},
        {"name", "minio"},
        {"version", "7.1.9"},
        {"values", values}};
    return node;
}

struct Fixture {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    KubernetesConnector connector{factory};

    SiteTarget Site(const std::string& flux) const {
        return Target(
            TargetKind::kKubernetes,
            "http://k8s.sim:6443",
            {{"worker_nodes_ip", {"10.16.0.11"}}, {"namespace_prefix", "paas"}, {"flux_version", flux}}
        );
    }

    /// Every object kind on the site (plural names), one entry per object, pods included.
    std::vector<std::string> Kinds() {
        std::vector<std::string> kinds;
        const Json all = site->Objects();  // a range-for would not keep a temporary alive (C++20)
        for (const auto& [plural, objects] : all["kubernetes"].items()) {
            for (std::size_t i = 0; i < objects.size(); ++i) {
                kinds.push_back(plural);
            }
        }
        return kinds;
    }
};

const KubeManifest* Find(const std::vector<KubeManifest>& manifests, const std::string& kind) {
    for (const auto& m : manifests) {
        if (m.kind == kind) {
            return &m;
        }
    }
    return nullptr;
}

}  // namespace

TEST_CASE(
    "a HelmChart becomes a Flux v1 HelmRelease with the chart and its parsed values", "[connectors][kubernetes][helm]"
) {
    Fixture f;
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {Chart()});
    const auto manifests = Ok(BuildKubernetesManifests(Request(kDeployment, spec, f.Site("v1"))));
    REQUIRE(manifests.size() == 2);  // namespace + release
    const KubeManifest* release = Find(manifests, "HelmRelease");
    REQUIRE(release != nullptr);
    CHECK(release->collection == "/apis/helm.fluxcd.io/v1/namespaces/" + manifests.front().name + "/helmreleases");
    const Json& spec_json = release->body["spec"];
    CHECK(
        spec_json["chart"] ==
        Json{{"repository", "https://charts.bitnami.com/bitnami"}, {"name", "minio"}, {"version", "7.1.9"}}
    );
    CHECK(spec_json["values"]["persistence"]["enabled"] == false);  // a YAML boolean, not the text "false"
    CHECK(spec_json["values"]["service"]["type"] == "NodePort");
    CHECK(spec_json["values"]["accessKey"]["password"] == "MY_ACCESS_KEY");
    CHECK(spec_json["releaseName"] == release->name);
}

TEST_CASE(
    "Flux v1: the corpus chart is released on the simulator, its ports shown, and delete leaves nothing",
    "[connectors][kubernetes][helm]"
) {
    Fixture f;
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {Chart()});
    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.Site("v1"))));
    Observation obs = Ok(f.connector.Poll(handle, spec));
    CHECK(obs.phase == Phase::kInProgress);
    CHECK(obs.reason.find("HelmRelease helm") != std::string::npos);
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    const Json& ports = obs.attributes["helm"]["service_ports"];
    REQUIRE(ports.contains("minio"));
    CHECK(ports["minio"]["minio"]["target"].get<int>() >= 30000);  // the node port, as the original's output reads
    CHECK(obs.attributes["helm"]["worker_nodes_ips"] == Json::array({"10.16.0.11"}));
    REQUIRE(obs.instances.size() == 1);
    CHECK(obs.instances[0].state == orch::connectors::InstanceStatus::kStarted);

    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kInProgress);
    obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    CHECK(obs.phase == Phase::kGone);
    CHECK(f.Kinds().empty());
}

TEST_CASE(
    "Flux v2: a HelmRepository source and a v2beta1 HelmRelease, and delete removes both",
    "[connectors][kubernetes][helm]"
) {
    Fixture f;
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {Chart()});
    const auto manifests = Ok(BuildKubernetesManifests(Request(kDeployment, spec, f.Site("v2"))));
    REQUIRE(manifests.size() == 3);
    CHECK(manifests[1].kind == "HelmRepository");
    CHECK(manifests[1].body["spec"]["url"] == "https://charts.bitnami.com/bitnami");
    CHECK(manifests[2].collection.find("/apis/helm.toolkit.fluxcd.io/v2beta1/") == 0);
    CHECK(manifests[2].body["spec"]["chart"]["spec"]["sourceRef"]["name"] == manifests[1].name);

    const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.Site("v2"))));
    Observation obs = PollUntilSettled(f.connector, handle, spec, *f.site);
    REQUIRE(obs.phase == Phase::kReady);
    CHECK(obs.attributes["helm"]["service_ports"].contains("minio"));
    const auto kinds = f.Kinds();
    CHECK(std::count(kinds.begin(), kinds.end(), "helmrepositories") == 1);
    CHECK(std::count(kinds.begin(), kinds.end(), "helmreleases") == 1);

    CHECK(Ok(f.connector.Delete(handle, false)) == Deletion::kInProgress);
    CHECK(PollUntilSettled(f.connector, handle, spec, *f.site).phase == Phase::kGone);
    CHECK(f.Kinds().empty());
}

TEST_CASE(
    "a failed Helm install fails the deployment with the release's message (v1 and v2)",
    "[connectors][kubernetes][helm]"
) {
    for (const std::string flux : {"v1", "v2"}) {
        Fixture f;
        const auto spec =
            SpecOf(DeploymentKind::kKubernetes, {Chart("SIM_HELM_ERROR: 'timed out waiting for the condition'\n")});
        const Handle handle = Ok(f.connector.Create(Request(kDeployment, spec, f.Site(flux))));
        const Observation obs = PollUntilSettled(f.connector, handle, spec, *f.site);
        INFO(flux << ": " << obs.reason);
        REQUIRE(obs.phase == Phase::kFailed);
        CHECK(obs.reason.find("timed out waiting for the condition") != std::string::npos);
        CHECK(obs.failure == FailureKind::kTryAnotherSite);
    }
}

TEST_CASE(
    "Helm chart values are the user's: bad or hostile YAML is a user error, bounded",
    "[connectors][kubernetes][helm][security]"
) {
    Fixture f;
    const auto fails = [&](const std::string& values) {
        const auto spec = SpecOf(DeploymentKind::kKubernetes, {Chart(values)});
        return Fails(BuildKubernetesManifests(Request(kDeployment, spec, f.Site("v1"))));
    };
    CHECK(fails("a: [1, 2").kind == FailureKind::kUserError);
    CHECK(fails("- just\n- a list\n").kind == FailureKind::kUserError);
    // A billion laughs: nine levels of nine references expand to 9^9 values.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        const std::string prev(1, static_cast<char>(c - 1));
        bomb += std::string(1, c) + ": &" + std::string(1, c) + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
                prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
    }
    const Failure bombed = fails(bomb);
    CHECK(bombed.kind == FailureKind::kUserError);
    CHECK(bombed.message.find("too large") != std::string::npos);
    CHECK(fails(std::string(300 * 1024, 'a')).kind == FailureKind::kUserError);
    CHECK(fails(std::string(100, '[') + std::string(100, ']')).kind == FailureKind::kUserError);

    auto bad_site = f.Site("v3");
    const auto spec = SpecOf(DeploymentKind::kKubernetes, {Chart()});
    CHECK(Fails(f.connector.Create(Request(kDeployment, spec, bad_site))).kind == FailureKind::kTryAnotherSite);
    CHECK(f.Kinds().empty());
}
