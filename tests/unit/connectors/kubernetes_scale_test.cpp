#include "connector_test_util.hpp"

#include <connectors/kubernetes_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <map>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;
using orch::tosca::DeploymentKind;

TEST_CASE(
    "Kubernetes: a scale past the site's GPUs fails at once with the scheduler's reason and what it left",
    "[connectors][kubernetes][scale]"
) {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();  // one node with 2 GPUs
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    KubernetesConnector connector{factory};
    const SiteTarget target = Target(TargetKind::kKubernetes, "http://k8s.sim:6443");
    auto node = AppNode("trainer", std::string(kKubernetesAppType), "tensorflow/tensorflow:2.15.0-gpu");
    node.resources.gpu.count = 1;
    auto spec = SpecOf(DeploymentKind::kKubernetes, {node});
    const Handle handle = Ok(connector.Create(Request("dep-scale", spec, target)));
    REQUIRE(PollUntilSettled(connector, handle, spec, *site).phase == Phase::kReady);

    spec.nodes[0].count = 3;  // 3 GPUs on a site with 2
    const Handle scaled = Ok(connector.Update(handle, Request("dep-scale", spec, target)));
    // Bounded: a few simulated seconds (the pod is created and tried by the scheduler), not the
    // Deployment's 600 s progress deadline.
    const Observation obs = PollUntilSettled(connector, scaled, spec, *site, 1.0, 5);
    INFO(obs.reason);
    REQUIRE(obs.phase == Phase::kFailed);
    CHECK(obs.reason.find("Insufficient nvidia.com/gpu") != std::string::npos);
    CHECK(obs.reason.find(" of 3 replicas running, the others Pending") != std::string::npos);
}

namespace {

// The Deployment of node `node` as the simulated site holds it (read through its API).
Json SiteDeployment(SimHttpClient& client, const Handle& handle, const std::string& node) {
    orch::http::ClientRequest request;
    request.method = "GET";
    request.url = "http://k8s.sim:6443/apis/apps/v1/namespaces/" + handle.physical_id + "/deployments/" + node;
    request.timeout = std::chrono::seconds(5);
    const auto response = client.Send(request);
    REQUIRE(response);
    REQUIRE(response->status == 200);
    return Json::parse(response->body);
}

}  // namespace

TEST_CASE(
    "Kubernetes: a failed scale is rolled back to the replica count the Deployment had",
    "[connectors][kubernetes][scale][rollback]"
) {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();  // one node with 2 GPUs
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    KubernetesConnector connector{factory};
    const SiteTarget target = Target(TargetKind::kKubernetes, "http://k8s.sim:6443");
    auto node = AppNode("trainer", std::string(kKubernetesAppType), "tensorflow/tensorflow:2.15.0-gpu");
    node.resources.gpu.count = 1;
    auto spec = SpecOf(DeploymentKind::kKubernetes, {node});
    spec.nodes[0].count = 2;
    const Handle handle = Ok(connector.Create(Request("dep-back", spec, target)));
    REQUIRE(PollUntilSettled(connector, handle, spec, *site).phase == Phase::kReady);

    auto bigger = spec;
    bigger.nodes[0].count = 3;  // 3 GPUs on a site with 2
    const Handle scaled = Ok(connector.Update(handle, Request("dep-back", bigger, target)));
    REQUIRE(PollUntilSettled(connector, scaled, bigger, *site, 1.0, 5).phase == Phase::kFailed);
    REQUIRE(SiteDeployment(client, scaled, "trainer")["spec"]["replicas"] == 3);

    const Restored restored = Ok(connector.RollBack(scaled));
    CHECK(restored.counts == std::map<std::string, int>{{"trainer", 2}});
    CHECK(SiteDeployment(client, scaled, "trainer")["spec"]["replicas"] == 2);
    // The site settles on the old count: the Pending pod goes, the two running ones stay ready.
    const Observation back = PollUntilSettled(connector, restored.handle, spec, *site);
    INFO(back.reason);
    CHECK(back.phase == Phase::kReady);
    int running = 0;
    for (const auto& instance : back.instances) {
        running += instance.state == InstanceStatus::kStarted ? 1 : 0;
    }
    CHECK(running == 2);
    // Done once: the handle kept no longer carries anything to put back.
    CHECK(Fails(connector.RollBack(restored.handle)).kind == FailureKind::kUserError);
}

TEST_CASE(
    "Kubernetes: an update that changed more than replica counts is not rolled back",
    "[connectors][kubernetes][scale][rollback]"
) {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    KubernetesConnector connector{factory};
    const SiteTarget target = Target(TargetKind::kKubernetes, "http://k8s.sim:6443");
    auto spec = SpecOf(DeploymentKind::kKubernetes, {AppNode("web", std::string(kKubernetesAppType))});
    const Handle handle = Ok(connector.Create(Request("dep-mixed", spec, target)));
    REQUIRE(PollUntilSettled(connector, handle, spec, *site).phase == Phase::kReady);

    auto changed = spec;
    changed.nodes[0].count = 2;
    changed.nodes[0].image = "nginx:1.27";  // a new pod template: a rollout, not a scale
    const Handle updated = Ok(connector.Update(handle, Request("dep-mixed", changed, target)));
    CHECK(Fails(connector.RollBack(updated)).kind == FailureKind::kUserError);
    CHECK(SiteDeployment(client, updated, "web")["spec"]["replicas"] == 2);
}

namespace {

int CountIn(const Observation& obs, InstanceStatus state) {
    return static_cast<int>(std::count_if(obs.instances.begin(), obs.instances.end(), [&](const auto& i) {
        return i.state == state;
    }));
}

}  // namespace

TEST_CASE(
    "Kubernetes: stop scales the pod's Deployment to 0 remembering its count, start scales it back",
    "[connectors][kubernetes][actions]"
) {
    std::unique_ptr<orch::sim::SiteSim> site = StillSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    KubernetesConnector connector{factory};
    const SiteTarget target = Target(TargetKind::kKubernetes, "http://k8s.sim:6443");
    auto node = AppNode("notebook", std::string(kKubernetesAppType), "tensorflow/tensorflow:2.15.0-gpu");
    node.resources.gpu.count = 1;
    auto spec = SpecOf(DeploymentKind::kKubernetes, {node});
    spec.nodes[0].count = 2;
    const Handle handle = Ok(connector.Create(Request("dep-stop", spec, target)));
    const Observation running = PollUntilSettled(connector, handle, spec, *site);
    REQUIRE(running.phase == Phase::kReady);
    REQUIRE(CountIn(running, InstanceStatus::kStarted) == 2);
    const std::string pod = running.instances.front().physical_id;

    CHECK(Ok(connector.Act(handle, pod, "stop")));
    const Json stopped_object = SiteDeployment(client, handle, "notebook");
    CHECK(stopped_object["spec"]["replicas"] == 0);
    CHECK(stopped_object["metadata"]["annotations"]["orchestrator.indigo-datacloud.eu/stopped-replicas"] == "2");
    // The pods go; the node's two instances stay, reported stopped (no GPU is held meanwhile).
    const Observation stopped = PollUntilSettled(connector, handle, spec, *site);
    INFO(stopped.reason);
    CHECK(stopped.phase == Phase::kReady);
    CHECK(CountIn(stopped, InstanceStatus::kStopped) == 2);
    CHECK(CountIn(stopped, InstanceStatus::kStarted) == 0);
    CHECK(Ok(connector.Act(handle, pod, "stop")));  // a second stop changes nothing
    CHECK(
        SiteDeployment(client, handle, "notebook")["metadata"]["annotations"].value(
            "orchestrator.indigo-datacloud.eu/stopped-replicas", ""
        ) == "2"
    );

    // The stopped resource keeps the old pod's name: start finds its Deployment by it.
    CHECK(Ok(connector.Act(handle, pod, "start")));
    const Json started_object = SiteDeployment(client, handle, "notebook");
    CHECK(started_object["spec"]["replicas"] == 2);
    CHECK_FALSE(started_object["metadata"]
                    .value("annotations", Json::object())
                    .contains("orchestrator.indigo-datacloud.eu/stopped-replicas"));
    const Observation back = PollUntilSettled(connector, handle, spec, *site);
    CHECK(back.phase == Phase::kReady);
    CHECK(CountIn(back, InstanceStatus::kStarted) == 2);
    CHECK(CountIn(back, InstanceStatus::kStopped) == 0);

    CHECK(Fails(connector.Act(handle, "someone-else-7f9c", "stop")).kind == FailureKind::kUserError);
    CHECK(Fails(connector.Act(handle, pod, "reboot")).kind == FailureKind::kUserError);
}
