// Scaling a deployment made through IM, as the original does (connectors.md §6): the VMs to go
// are removed with DELETE .../vms/<ids>, the new TOSCA is POSTed to the infrastructure and IM
// adds what the counts lack. The simulated IM checks both calls against its OpenAPI document.
#include "im_test_util.hpp"

#include <catch2/catch.hpp>

using namespace orch::connectors;
using namespace orch::connectors::test;
using orch::Json;

namespace {

constexpr char kDeployment[] = "7b1e3c1a-0000-4000-8000-00000000000b";

// `removal_list` is spliced in per test (empty: none).
std::string Template(const std::string& removal_list) {
    return R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  inputs:
    workers:
      type: integer
      default: 2
  node_templates:
    front:
      type: tosca.nodes.indigo.Compute
      capabilities:
        endpoint:
          properties:
            network_name: PUBLIC
        host:
          properties:
            num_cpus: 1
            mem_size: 2 GB
    worker:
      type: tosca.nodes.indigo.Compute
      capabilities:
        scalable:
          properties:
            count: { get_input: workers }
)" + removal_list +
           R"(        host:
          properties:
            num_cpus: 2
            mem_size: 4 GB
  outputs:
    worker_ips:
      value: { get_attribute: [ worker, private_address ] }
)";
}

struct Fixture {
    std::unique_ptr<orch::sim::SiteSim> site = ImSite();
    SimHttpClient client{*site};
    SharedClientFactory factory{client};
    ImConnector connector{factory, ImOptions{.endpoint = "http://im.sim"}};
    orch::tosca::DeploymentSpec spec;

    DeployRequest Make(int workers, const std::string& removal_list = "") {
        orch::tosca::TemplateRequest parse;
        parse.inputs = Json{{"workers", workers}};
        const std::string text = Template(removal_list);
        auto check = Engine().Check(text, parse);
        REQUIRE(check.valid());
        spec = *check.spec;
        DeployRequest request = Request(kDeployment, spec, ImTarget());
        request.template_text = text;
        request.placements = VmPlacements(spec);
        return request;
    }

    std::map<std::pair<std::string, int>, std::string> VmsByInstance(const Observation& obs) {
        std::map<std::pair<std::string, int>, std::string> out;
        for (const auto& instance : obs.instances) {
            REQUIRE(out.emplace(std::make_pair(instance.node, instance.index), instance.physical_id).second);
        }
        return out;
    }
};

std::size_t WorkersOnSite(orch::sim::SiteSim& site) {
    std::size_t n = 0;
    const Json objects = site.Objects();  // kept alive: the loop reads into it
    for (const auto& vm : objects["im"][0]["vms"]) {
        n += vm["node"] == "worker" ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_CASE("IM scale out: the new TOSCA is POSTed, the added VM binds to the next index", "[connectors][im]") {
    Fixture f;
    const Handle created = Ok(f.connector.Create(f.Make(2)));
    const Observation ready = PollUntilSettled(f.connector, created, f.spec, *f.site);
    REQUIRE(ready.phase == Phase::kReady);
    const auto before = f.VmsByInstance(ready);
    REQUIRE(before.size() == 3);

    const std::size_t sent_before = f.client.Sent().size();
    const Handle scaled = Ok(f.connector.Update(created, f.Make(3)));
    const auto sent = f.client.Sent();
    const auto& post = sent.back();
    CHECK(post.method == "POST");
    CHECK(post.url == "http://im.sim/infrastructures/" + created.physical_id);
    CHECK(orch::http::FindHeader(post.headers, "Content-Type") == "text/yaml");
    CHECK(post.body.find("count: 3") != std::string::npos);
    for (std::size_t i = sent_before; i < sent.size(); ++i) {
        CHECK(sent[i].method != "DELETE");  // nothing to remove on a scale out
    }
    CHECK(WorkersOnSite(*f.site) == 3);

    const Observation in_progress = Ok(f.connector.Poll(scaled, f.spec));
    CHECK(in_progress.phase == Phase::kInProgress);
    const Observation done = PollUntilSettled(f.connector, scaled, f.spec, *f.site);
    REQUIRE(done.phase == Phase::kReady);
    const auto after = f.VmsByInstance(done);
    REQUIRE(after.size() == 4);
    for (const auto& [key, vm] : before) {
        CHECK(after.at(key) == vm);  // the VMs that were there keep their resources
    }
    CHECK(after.count({"worker", 2}) == 1);
    CHECK(done.outputs["worker_ips"].size() == 3);
    CHECK(f.site->Rejections().empty());
}

TEST_CASE(
    "IM scale in: the removal_list's VM goes with DELETE .../vms/<id>, the others keep their index", "[connectors][im]"
) {
    Fixture f;
    const Handle created = Ok(f.connector.Create(f.Make(3)));
    const Observation ready = PollUntilSettled(f.connector, created, f.spec, *f.site);
    REQUIRE(ready.phase == Phase::kReady);
    const auto before = f.VmsByInstance(ready);
    const std::string first_worker = before.at({"worker", 0});

    // The workflow hands the connector the removal_list with the VMs' physical ids.
    const std::string removal = "            removal_list: ['" + first_worker + "']\n";
    const Handle scaled = Ok(f.connector.Update(created, f.Make(2, removal)));
    const auto sent = f.client.Sent();
    REQUIRE(sent.size() >= 2);
    const auto& deleted = sent[sent.size() - 2];
    CHECK(deleted.method == "DELETE");
    CHECK(deleted.url == "http://im.sim/infrastructures/" + created.physical_id + "/vms/" + first_worker);
    CHECK(sent.back().method == "POST");
    // IM never sees the orchestrator's removal_list: the connector removed those VMs itself.
    CHECK(sent.back().body.find("removal_list") == std::string::npos);
    CHECK(WorkersOnSite(*f.site) == 2);

    const Observation done = PollUntilSettled(f.connector, scaled, f.spec, *f.site);
    REQUIRE(done.phase == Phase::kReady);
    const auto after = f.VmsByInstance(done);
    REQUIRE(after.size() == 3);
    CHECK(after.count({"worker", 0}) == 0);  // its resource is gone with it
    CHECK(after.at({"worker", 1}) == before.at({"worker", 1}));
    CHECK(after.at({"worker", 2}) == before.at({"worker", 2}));
    CHECK(after.at({"front", 0}) == before.at({"front", 0}));
    CHECK(done.outputs["worker_ips"].size() == 2);

    // A lowered count without a removal_list removes the highest index, as the API's plan does.
    const Handle again = Ok(f.connector.Update(scaled, f.Make(1)));
    CHECK(
        f.client.Sent()[f.client.Sent().size() - 2].url ==
        "http://im.sim/infrastructures/" + created.physical_id + "/vms/" + before.at({"worker", 2})
    );
    const Observation last = PollUntilSettled(f.connector, again, f.spec, *f.site);
    REQUIRE(last.phase == Phase::kReady);
    CHECK(f.VmsByInstance(last).at({"worker", 1}) == before.at({"worker", 1}));
    CHECK(f.site->Rejections().empty());
}
