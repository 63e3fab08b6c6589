#include "connector_test_util.hpp"

#include <connectors/kubernetes_connector.hpp>
#include <connectors/workload.hpp>

#include <catch2/catch.hpp>

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
