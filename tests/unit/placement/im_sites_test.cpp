// IaaS services no direct connector speaks (OpenNebula, EC2, the EGI FedCloud types) are VM
// sites when the catalogue gives them an IM endpoint: placement offers them, with the IM cloud
// type the connector builds the auth record from; without an endpoint they stay refused.
#include "fixture_world.hpp"
#include "spec_builders.hpp"

#include <orchestrator/placement/default_placer.hpp>

#include <catch2/catch.hpp>

#include <memory>

namespace orch::test {
namespace {

const char* kImCatalogue = R"(
providers:
  - id: SITE-N
    name: site-n
    services:
      N-one:
        service_type: eu.egi.cloud.vm-management.opennebula
        endpoint: https://one.n.test:2633/RPC2
        type: compute
        supported_idps: [{name: iam, issuer: "https://iam.test/"}]
        properties: {im_endpoint: "http://im.test"}
      N-bare:
        service_type: eu.egi.cloud.vm-management.opennebula
        endpoint: https://one2.n.test:2633/RPC2
        type: compute
        supported_idps: [{name: iam, issuer: "https://iam.test/"}]
  - id: SITE-G
    name: site-g
    services:
      G-egi:
        service_type: eu.egi.cloud.vm-management.openstack
        endpoint: https://keystone.g.test:5000/v3
        type: compute
        supported_idps: [{name: egi, issuer: "https://iam.test/"}]
        properties: {im_endpoint: "http://im.test", im_cloud_type: EGI, sitename: CESGA}
      G-azure:
        service_type: eu.egi.cloud.vm-management.openstack
        endpoint: https://keystone2.g.test:5000/v3
        type: compute
        supported_idps: [{name: egi, issuer: "https://iam.test/"}]
        properties: {im_endpoint: "http://im.test", im_cloud_type: Azure}
  - id: SITE-X
    name: site-x
    services:
      X-aws:
        service_type: com.amazonaws.ec2
        endpoint: https://ec2.x.test
        type: compute
        supported_idps: [{name: iam, issuer: "https://iam.test/"}]
        properties: {im_endpoint: "http://im.test"}
tenants:
  t-n:
    tenant: {tenant_id: p-n, tenant_name: proj-n, service: N-one, iam_organisation: g}
    flavors: [{flavor_id: n1, flavor_name: medium, num_vcpus: 4, ram: 8192, disk: 20, num_gpus: 0}]
    images: [{image_id: "7", image_name: "ubuntu:22.04", type: linux, distribution: ubuntu, version: "22.04"}]
  t-n2:
    tenant: {tenant_id: p-n2, tenant_name: proj-n2, service: N-bare, iam_organisation: g}
    flavors: [{flavor_id: n1, flavor_name: medium, num_vcpus: 4, ram: 8192, disk: 20, num_gpus: 0}]
    images: [{image_id: "7", image_name: "ubuntu:22.04", type: linux, distribution: ubuntu, version: "22.04"}]
  t-g:
    tenant: {tenant_id: p-g, tenant_name: vo.access.egi.eu, service: G-egi, iam_organisation: g}
    flavors: [{flavor_id: g1, flavor_name: m1.large, num_vcpus: 4, ram: 8192, disk: 40, num_gpus: 0}]
    images: [{image_id: img-g, image_name: "ubuntu:22.04", type: linux, distribution: ubuntu, version: "22.04"}]
  t-g2:
    tenant: {tenant_id: p-g2, tenant_name: vo2, service: G-azure, iam_organisation: g}
    flavors: [{flavor_id: g1, flavor_name: m1.large, num_vcpus: 4, ram: 8192, disk: 40, num_gpus: 0}]
    images: [{image_id: img-g, image_name: "ubuntu:22.04", type: linux, distribution: ubuntu, version: "22.04"}]
  t-x:
    tenant: {tenant_id: p-x, tenant_name: proj-x, service: X-aws, iam_organisation: g}
    flavors: [{flavor_id: t3, flavor_name: t3.large, num_vcpus: 4, ram: 8192, disk: 40, num_gpus: 0}]
    images: [{image_id: ami-1, image_name: "ubuntu:22.04", type: linux, distribution: ubuntu, version: "22.04"}]
)";

Json ImSlas() {
    Json slas = Json::array();
    Json priority = Json::array();
    for (const auto& [provider, service] : std::vector<std::pair<std::string, std::string>>{
             {"SITE-N", "N-one"},
             {"SITE-N", "N-bare"},
             {"SITE-G", "G-egi"},
             {"SITE-G", "G-azure"},
             {"SITE-X", "X-aws"}}) {
        slas.push_back(
            {{"id", "sla-" + service},
             {"customer", "g"},
             {"provider", provider},
             {"services", {{{"type", "computing"}, {"service_id", service}, {"targets", Json::array()}}}}}
        );
        priority.push_back({{"sla_id", "sla-" + service}, {"service_id", service}, {"weight", 1.0}});
    }
    return {
        {"g",
         {{"preferences",
           {{{"customer", "g"}, {"preferences", {{{"service_type", "compute"}, {"priority", priority}}}}}}},
          {"sla", slas}}}};
}

struct ImWorld {
    cmdb::StaticCatalogueSource catalogue{
        std::make_shared<const cmdb::Catalogue>(cmdb::ParseLocalCatalogueText(kImCatalogue, "im-sites").value())};
    std::unique_ptr<cmdb::FileSlaSource> slas = std::move(cmdb::FileSlaSource::FromJson(ImSlas(), "im-sites")).value();
    monitoring::NoFeed feed;
    placement::InMemoryUsageSource usage;
    placement::InMemorySiteHistory history;
    ManualClock clock{std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 50))};
    placement::DefaultPlacer placer{catalogue, *slas, feed, usage, history, placement::PlacementOptions{}, clock};

    placement::PlacementDecision Place(const tosca::DeploymentSpec& spec) {
        placement::PlacementRequest request;
        request.spec = &spec;
        request.requester = {"https://iam.test/", "alice", "g", ""};
        auto decision = placer.Place(request);
        REQUIRE(decision);
        return std::move(decision).value();
    }
};

const connectors::SiteTarget* Offered(const placement::PlacementDecision& decision, const std::string& service) {
    for (const auto& candidate : decision.ranked) {
        if (candidate.target.service_id == service) {
            return &candidate.target;
        }
    }
    return nullptr;
}

// cloudProviderEndpoint.deploymentType of the candidate on `service`, as the API shows it.
std::string DeploymentTypeOf(const placement::PlacementDecision& decision, const std::string& service) {
    for (const auto& candidate : decision.ranked) {
        if (candidate.target.service_id == service) {
            return candidate.endpoint.value("deploymentType", std::string());
        }
    }
    return "(not offered)";
}

TEST_CASE("IM-only IaaS sites with an IM endpoint are offered for VMs", "[placement][filter][im]") {
    ImWorld world;
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kVirtualMachines;
    spec.nodes.push_back(VmNode("vm", 2, 4096, 0));
    spec.nodes[0].resources.image = "ubuntu:22.04";
    const auto decision = world.Place(spec);

    const auto* nebula = Offered(decision, "N-one");
    REQUIRE(nebula != nullptr);
    CHECK(nebula->kind == connectors::TargetKind::kOpenStack);  // served by the VM router → IM
    CHECK(nebula->options.at("im_cloud_type") == "OpenNebula");
    CHECK(nebula->options.at("im_endpoint") == "http://im.test");
    CHECK(nebula->project == "proj-n");
    const auto& chosen = decision.ranked[0].placements;
    CHECK_FALSE(chosen.empty());

    const auto* egi = Offered(decision, "G-egi");
    REQUIRE(egi != nullptr);
    CHECK(egi->options.at("im_cloud_type") == "EGI");
    CHECK(egi->options.at("sitename") == "CESGA");
    CHECK(egi->project == "vo.access.egi.eu");  // the VO of the EGI record

    // The original's IaaSType of the cloud IM reaches, not the router's OPENSTACK.
    CHECK(DeploymentTypeOf(decision, "N-one") == "OPENNEBULA");
    CHECK(DeploymentTypeOf(decision, "G-egi") == "OPENSTACK");  // EGI FedCloud: OpenStack clouds

    // No IM endpoint: still a type this orchestrator cannot deploy to.
    CHECK(Offered(decision, "N-bare") == nullptr);
    CHECK_THAT(AllReasons(*FindVerdict(decision, "N-bare")), Catch::Contains("cannot deploy to"));
    // A cloud type whose IM record the connector cannot build stays unoffered.
    CHECK(Offered(decision, "G-azure") == nullptr);
    // EC2 needs the user's own credentials: only through an SLA placement policy, as before.
    CHECK(Offered(decision, "X-aws") == nullptr);
    CHECK_THAT(AllReasons(*FindVerdict(decision, "X-aws")), Catch::Contains("needs your own cloud credentials"));
}

TEST_CASE("IM-only IaaS sites are not offered for containers", "[placement][filter][im]") {
    ImWorld world;
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kMarathon;
    spec.nodes.push_back(ContainerNode("app", "tosca.nodes.indigo.Container.Application.Docker.Marathon", 0));
    const auto decision = world.Place(spec);
    CHECK(decision.ranked.empty());
    CHECK_THAT(
        AllReasons(*FindVerdict(decision, "N-one")), Catch::Contains("runs iaas workloads; this deployment needs")
    );
}

}  // namespace
}  // namespace orch::test
