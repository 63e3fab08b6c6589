// End to end on the real OpenStack rig (fixture `openstack`: Keystone, Placement, Glance and Nova
// with a fake hypervisor that has two passthrough V100s): the real orchestrator binary, a real
// PostgreSQL, a catalogue written by the test whose OpenStack services point at the rig's
// Keystone, and a corpus VM template asking for a GPU. Checks what the user sees (status,
// outputs, statusReason) and Nova's own server list.
#include "../../integration/openstack/openstack_rig.hpp"
#include "../sites/site_rig.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::Api;
namespace rig = orch::test::openstack;

constexpr auto kVmTimeout = std::chrono::seconds(120);
const std::set<std::string> kCreateDone = {"CREATE_COMPLETE", "CREATE_FAILED"};
const std::set<std::string> kUpdateDone = {"UPDATE_COMPLETE", "UPDATE_FAILED"};
const std::set<std::string> kDeleteDone = {"DELETE_COMPLETE", "DELETE_FAILED"};

/// One catalogue site served by the rig (one Nova): sites differ in which Nova flavor their
/// catalogue entry names for its one-GPU offer.
struct OpenStackSite {
    std::string id;
    double weight = 1.0;
    std::string nova_flavor = "gpu.v100";  ///< the rig flavor behind the catalogue's "gpu.large"
    std::string service() const { return id + "_nova"; }
};

std::string Catalogue(const std::vector<OpenStackSite>& sites) {
    const Json& r = rig::Rig();
    std::ostringstream out;
    out << "providers:\n";
    for (const auto& site : sites) {
        out << "  - id: " << site.id << "\n    name: " << site.id << "\n    services:\n"
            << "      " << site.service() << ":\n"
            << "        service_type: org.openstack.nova\n"
            << "        endpoint: " << r["auth_url"].get<std::string>() << "\n"
            << "        type: compute\n"
            << "        region: " << r["region"].get<std::string>() << "\n"
            << "        iam_enabled: false\n";
    }
    out << "tenants:\n";
    for (const auto& site : sites) {
        // The rig has no real Neutron: servers are made without networks ("none").
        out << "  " << site.id << "-demo:\n"
            << "    tenant: {tenant_id: " << r["project"]["id"].get<std::string>()
            << ", tenant_name: " << r["project"]["name"].get<std::string>() << ", service: " << site.service()
            << ", iam_organisation: e2e, private_network_name: none}\n"
            << "    flavors:\n"
            << "      - {flavor_id: " << r["flavors"]["m1.small"]["id"].get<std::string>()
            << ", flavor_name: m1.small, num_vcpus: 1, ram: 512, disk: 1, num_gpus: 0}\n"
            << "      - {flavor_id: " << r["flavors"][site.nova_flavor]["id"].get<std::string>()
            << ", flavor_name: gpu.large, num_vcpus: 2, ram: 2048, disk: 10, num_gpus: 1, gpu_vendor: nvidia, "
               "gpu_model: \"Tesla V100\"}\n"
            // The Glance image is a 1 KiB placeholder (the fake driver boots nothing); the catalogue
            // describes it as the Ubuntu the template asks for.
            << "    images:\n"
            << "      - {image_id: " << r["image"]["id"].get<std::string>()
            << ", image_name: " << r["image"]["name"].get<std::string>()
            << ", architecture: x86_64, type: linux, distribution: ubuntu, version: \"16.04\"}\n";
    }
    return out.str();
}

std::string Credentials(const std::vector<OpenStackSite>& sites) {
    const Json& r = rig::Rig();
    std::string out = "credentials:\n";
    for (const auto& site : sites) {
        out += "  " + site.service() + ": {username: " + r["user"]["name"].get<std::string>() +
               ", password: " + Json(r["user"]["password"].get<std::string>()).dump() + "}\n";
    }
    return out;
}

struct Orchestrator {
    /// `workflow_yaml`: extra `workflow:` keys, each line indented by two spaces.
    explicit Orchestrator(const std::vector<OpenStackSite>& sites, const std::string& workflow_yaml = "")
        : process(db.dsn(), {}, Config(sites, workflow_yaml)), api(process.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(process.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    static std::string Config(const std::vector<OpenStackSite>& sites, const std::string& workflow_yaml) {
        std::vector<orch::e2e::SlaEntry> slas;
        slas.reserve(sites.size());
        for (const auto& site : sites) {
            slas.push_back({site.id, site.service(), site.weight});
        }
        return orch::e2e::WriteOrchestratorFiles(
            Catalogue(sites), orch::e2e::SlaYaml(slas), workflow_yaml, Credentials(sites)
        );
    }

    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess process;
    Api api;
};

/// deep-oc/vm_docker_deepaas.yml (the corpus' DEEPaaS VM) asking for one NVIDIA GPU. Its VM is a
/// plain tosca.nodes.Compute, whose host capability has no GPU properties (the INDIGO Compute's
/// has), and it is not scalable; so the node becomes an INDIGO Compute with num_gpus and
/// gpu_vendor from inputs, and gets a scalable count from the input `count`.
std::string GpuVmTemplate() {
    std::string text = orch::e2e::CorpusTemplate("indigo-dc-tosca-templates/deep-oc/vm_docker_deepaas.yml");
    auto replace = [&text](const std::string& from, const std::string& to) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    };
    replace(
        "  inputs:\n",
        "  inputs:\n\n    num_gpus:\n      type: integer\n      default: 1\n"
        "    count:\n      type: integer\n      default: 1\n"
    );
    replace("      type: tosca.nodes.Compute\n", "      type: tosca.nodes.indigo.Compute\n");
    replace(
        "            mem_size: { get_input: mem }\n",
        "            mem_size: { get_input: mem }\n"
        "            num_gpus: { get_input: num_gpus }\n"
        "            gpu_vendor: NVIDIA\n"
        "        scalable:\n"
        "          properties:\n"
        "            count: { get_input: count }\n"
    );
    return text;
}

Json Inputs(int count) {
    return {
        {"dockerhub_img", "deephdc/deep-oc-generic"}, {"cpus", 2}, {"mem", "2 GB"}, {"num_gpus", 1}, {"count", count}};
}

/// Nova's own list (as the rig's admin) of the servers named for a deployment.
Json NovaServers(const std::string& deployment_id) {
    const auto [status, body] = rig::AdminNovaGet("/servers/detail?all_tenants=1&name=%5Eorch-" + deployment_id + "-");
    REQUIRE(status == 200);
    return body["servers"];
}

/// Polls Nova's list until the deployment has `count` servers (none deleting).
Json WaitForServers(const std::string& deployment_id, std::size_t count, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    Json servers;
    while (std::chrono::steady_clock::now() < deadline) {
        servers = NovaServers(deployment_id);
        if (servers.size() == count) {
            return servers;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    INFO("Nova lists: " << servers.dump());
    FAIL("Nova never listed " << count << " servers for " << deployment_id);
    return servers;
}

/// What Nova makes when it finishes, after polling stopped, a create that `site`'s attempt sent:
/// the server the connector's Create asks for, named for the deployment's node (the template's
/// `simple_node`) and carrying that site's service as its `orch_service` metadata.
std::string MakeLateServer(const std::string& deployment_id, const OpenStackSite& site) {
    orch::connectors::OpenStackConnector connector{rig::Clients(), rig::RealClock(), rig::ConnectorOptions()};
    orch::tosca::DeploymentSpec spec;
    spec.nodes.push_back(rig::VmNode("simple_node"));
    orch::connectors::DeployRequest request;
    request.deployment_id = deployment_id;
    request.spec = &spec;
    request.target = rig::Target(rig::Auth::kPassword);
    request.target.site_id = site.id;
    request.target.service_id = site.service();
    request.placements["simple_node"] = rig::Placement("m1.small");
    const auto made = connector.Create(request);
    if (const auto* failure = std::get_if<orch::connectors::Failure>(&made)) {
        FAIL("the late server was not made: " << failure->message);
    }
    const Json& servers = std::get<orch::connectors::Handle>(made).state["servers"];
    REQUIRE(servers.size() == 1);
    return servers[0].value("id", "");
}

Json Scale(Orchestrator& o, const std::string& id, int count) {
    const Json body = {{"template", GpuVmTemplate()}, {"parameters", Inputs(count)}};
    const auto res = o.api.Call("PUT", "/deployments/" + id, body.dump());
    INFO(res.body);
    REQUIRE(res.status == 202);
    return o.api.WaitFor(id, kUpdateDone, kVmTimeout);
}

}  // namespace

TEST_CASE(
    "a GPU VM from the corpus boots on a GPU flavor, scales to 2 and back, and DELETE empties Nova", "[e2e][openstack]"
) {
    Orchestrator o({OpenStackSite{"CLOUD-A"}});
    const Json body = {{"template", GpuVmTemplate()}, {"parameters", Inputs(1)}};
    const auto res = o.api.Call("POST", "/deployments", body.dump());
    INFO(res.body);
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"].get<std::string>();

    const Json d = o.api.WaitFor(id, kCreateDone, kVmTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(d["cloudProviderName"] == "CLOUD-A");
    // The output reads public_address: the rig gives each server a loopback address, also as its
    // floating address (scripts/openstack/orch_vm.py).
    CHECK_THAT(d["outputs"]["deepaas_url"].dump(), Catch::Contains("127."));
    Json servers = WaitForServers(id, 1, std::chrono::seconds(10));
    CHECK(servers[0]["status"] == "ACTIVE");
    CHECK(servers[0]["flavor"]["original_name"] == "gpu.v100");

    const Json up = Scale(o, id, 2);
    INFO(up.dump(2));
    REQUIRE(up["status"] == "UPDATE_COMPLETE");
    servers = WaitForServers(id, 2, std::chrono::seconds(10));
    for (const auto& server : servers) {
        CHECK(server["status"] == "ACTIVE");
        CHECK(server["flavor"]["original_name"] == "gpu.v100");  // the placement chosen at create
    }

    const Json down = Scale(o, id, 1);
    INFO(down.dump(2));
    REQUIRE(down["status"] == "UPDATE_COMPLETE");
    CHECK(WaitForServers(id, 1, std::chrono::seconds(60)).size() == 1);

    REQUIRE(o.api.Call("DELETE", "/deployments/" + id).status == 204);
    const Json deleted = o.api.WaitFor(id, kDeleteDone, kVmTimeout);
    INFO(deleted.dump(2));
    CHECK(deleted["status"] == "DELETE_COMPLETE");
    CHECK(NovaServers(id).empty());
}

TEST_CASE(
    "Nova's No valid host moves the VM to the next site, and with no next site it is in statusReason",
    "[e2e][openstack]"
) {
    // CLOUD-A's catalogue names the three-GPU Nova flavor as its one-GPU offer, so Nova itself
    // refuses the server (more GPUs than the fake driver has) and the orchestrator moves on.
    // Late sweeps of a failed attempt's site every 10 s, from 2 s after the attempt started.
    const OpenStackSite cloud_a{"CLOUD-A", 1.0, "gpu.v100x3"};
    Orchestrator o(
        {cloud_a, OpenStackSite{"CLOUD-B", 0.5}},
        "  connector_call_timeout: 2s\n  late_sweeps: 12\n  late_sweep_interval: 10s\n"
    );
    const Json body = {{"template", GpuVmTemplate()}, {"parameters", Inputs(1)}};
    auto res = o.api.Call("POST", "/deployments", body.dump());
    REQUIRE(res.status == 201);
    const std::string id = Json::parse(res.body)["uuid"].get<std::string>();
    const Json d = o.api.WaitFor(id, kCreateDone, kVmTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(d["cloudProviderName"] == "CLOUD-B");
    const Json attempts = orch::e2e::AttemptsOf(o.db.dsn(), id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["provider_id"] == "CLOUD-A");
    CHECK_THAT(attempts[0]["reason"].get<std::string>(), Catch::Contains("No valid host was found"));
    CHECK(attempts[1]["outcome"] == "SUCCEEDED");
    // CLOUD-A's failed server was cleaned up; the one left is CLOUD-B's, on the one-GPU flavor.
    const Json servers = WaitForServers(id, 1, std::chrono::seconds(60));
    CHECK(servers[0]["flavor"]["original_name"] == "gpu.v100");

    // Nova now finishes a create of CLOUD-A's attempt, long after CLOUD-A's polls, cleanup and
    // in-flight check ended (STATUS, issue 18: that server stayed; CLOUD-B's delete does not take
    // another service's servers, so it outlived even the deployment). A late sweep of CLOUD-A
    // deletes it; CLOUD-B's server stays.
    // (Not counted at once: under load a sweep may delete it before Nova's list is read.)
    const std::string late = MakeLateServer(id, cloud_a);
    CHECK_FALSE(late.empty());
    const Json left = WaitForServers(id, 1, std::chrono::seconds(90));
    CHECK(left[0]["metadata"].value("orch_service", "") == "CLOUD-B_nova");
    CHECK(left[0]["id"] != late);
    CHECK(o.api.Call("GET", "/deployments/" + id).status == 200);
    CHECK(Json::parse(o.api.Call("GET", "/deployments/" + id).body)["status"] == "CREATE_COMPLETE");

    // Only the first site allowed: the fault is what the user reads.
    const Json only_first = {{"template", GpuVmTemplate()}, {"parameters", Inputs(1)}, {"maxProvidersRetry", 1}};
    res = o.api.Call("POST", "/deployments", only_first.dump());
    REQUIRE(res.status == 201);
    const std::string failed_id = Json::parse(res.body)["uuid"].get<std::string>();
    const Json failed = o.api.WaitFor(failed_id, kCreateDone, kVmTimeout);
    INFO(failed.dump(2));
    REQUIRE(failed["status"] == "CREATE_FAILED");
    CHECK_THAT(
        failed["statusReason"].get<std::string>(),
        Catch::Contains("Cloud Provider CLOUD-A\n") && Catch::Contains("No valid host was found")
    );
    CHECK(WaitForServers(failed_id, 0, std::chrono::seconds(60)).empty());

    for (const auto& dep : {id, failed_id}) {
        REQUIRE(o.api.Call("DELETE", "/deployments/" + dep).status == 204);
        CHECK(o.api.WaitFor(dep, kDeleteDone, kVmTimeout)["status"] == "DELETE_COMPLETE");
        CHECK(NovaServers(dep).empty());
    }
}
