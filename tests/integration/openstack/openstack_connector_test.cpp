// The OpenStack connector against a real Keystone 22 / Nova 26 (Zed) rig whose fake hypervisor
// has two PCI GPUs (NVIDIA V100, alias "v100"): flavor gpu.v100 asks for one, gpu.v100x3 for three.
#include "openstack_rig.hpp"

#include <common/uuid.hpp>
#include <connectors/openstack_connector.hpp>
#include <connectors/openstack_server.hpp>
#include <connectors/rest_client.hpp>

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using orch::Json;
using orch::connectors::DeployRequest;
using orch::connectors::Failure;
using orch::connectors::FailureKind;
using orch::connectors::Handle;
using orch::connectors::InstanceStatus;
using orch::connectors::Observation;
using orch::connectors::OpenStackConnector;
using orch::connectors::Phase;
namespace rig = orch::test::openstack;
using rig::Auth;

namespace {

struct Deployment {
    orch::tosca::DeploymentSpec spec;
    DeployRequest request;

    Deployment(Auth auth, const std::string& flavor, int count = 1) {
        auto node = rig::VmNode("vm");
        node.count = count;
        spec.nodes = {node};
        request.deployment_id = orch::RandomUuid();
        request.spec = &spec;
        request.target = rig::Target(auth);
        request.placements["vm"] = rig::Placement(flavor);
    }
};

Handle MustCreate(OpenStackConnector& connector, const DeployRequest& request) {
    auto created = connector.Create(request);
    if (auto* failure = std::get_if<Failure>(&created)) {
        FAIL("Create failed: " << failure->message);
    }
    return std::get<Handle>(created);
}

bool Settled(const Observation& o) {
    return o.phase != Phase::kInProgress;
}
bool Gone(const Observation& o) {
    return o.phase == Phase::kGone;
}

// Deletes through the connector and checks Nova's own view: every server answers 404.
void DeleteAndCheck(OpenStackConnector& connector, const Handle& handle, const orch::tosca::DeploymentSpec& spec) {
    auto deleted = connector.Delete(handle, false);
    if (auto* failure = std::get_if<Failure>(&deleted)) {
        FAIL("Delete failed: " << failure->message);
    }
    const Observation gone = rig::PollUntil(connector, handle, spec, Gone, 60s);
    INFO(gone.reason);
    CHECK(gone.phase == Phase::kGone);
    for (const auto& server : handle.state["servers"]) {
        CHECK(rig::AdminNovaGet("/servers/" + server["id"].get<std::string>()).first == 404);
    }
}

}  // namespace

TEST_CASE("password auth: a GPU server boots on the fake V100 host, stops, starts and is deleted", "[openstack]") {
    Deployment d(Auth::kPassword, "gpu.v100");
    d.spec.nodes[0].properties["os_users"] =
        Json::array({{{"os_user_name", "alice"}, {"os_user_ssh_public_key", "ssh-ed25519 AAAAC3Nza alice@lab"}}});
    OpenStackConnector connector(rig::Clients(), rig::RealClock(), rig::ConnectorOptions());
    const Handle handle = MustCreate(connector, d.request);
    REQUIRE(handle.state["servers"].size() == 1);
    const std::string id = handle.state["servers"][0]["id"];

    const Observation up = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
    INFO(up.reason);
    REQUIRE(up.phase == Phase::kReady);
    CHECK(up.instances.at(0).state == InstanceStatus::kStarted);
    CHECK(up.instances.at(0).physical_id == id);
    CHECK(up.attributes.at("vm")["server_ids"] == Json::array({id}));

    // Nova's record: our name, the GPU flavor, the PCI device really allocated, our user data.
    auto [status, body] = rig::AdminNovaGet("/servers/" + id);
    REQUIRE(status == 200);
    const Json& server = body["server"];
    CHECK(server["name"] == orch::connectors::OpenStackServerName(d.request.deployment_id, "vm", 0));
    CHECK(server["flavor"]["original_name"] == "gpu.v100");
    CHECK(server["flavor"]["extra_specs"]["pci_passthrough:alias"] == "v100:1");
    CHECK(server["metadata"]["orch_deployment_id"] == d.request.deployment_id);
    const std::string expected_user_data = orch::connectors::Base64Encode(
        "#cloud-config\nusers:\n  - default\n  - name: \"alice\"\n    shell: \"/bin/bash\"\n"
        "    ssh_authorized_keys:\n      - \"ssh-ed25519 AAAAC3Nza alice@lab\"\n"
    );
    CHECK(server["OS-EXT-SRV-ATTR:user_data"] == expected_user_data);

    auto stopped = connector.Act(handle, id, "stop");
    REQUIRE(std::holds_alternative<bool>(stopped));
    const Observation down = rig::PollUntil(
        connector,
        handle,
        d.spec,
        [](const Observation& o) {
            return o.instances.size() == 1 && o.instances[0].state == InstanceStatus::kStopped;
        },
        60s
    );
    CHECK(down.instances.at(0).attributes["status"] == "SHUTOFF");

    auto stop_again = connector.Act(handle, id, "stop");
    REQUIRE(std::holds_alternative<Failure>(stop_again));
    CHECK(std::get<Failure>(stop_again).kind == FailureKind::kUserError);

    auto started = connector.Act(handle, id, "start");
    REQUIRE(std::holds_alternative<bool>(started));
    const Observation again = rig::PollUntil(
        connector,
        handle,
        d.spec,
        [](const Observation& o) {
            return o.instances.size() == 1 && o.instances[0].state == InstanceStatus::kStarted;
        },
        60s
    );
    CHECK(again.phase == Phase::kReady);

    DeleteAndCheck(connector, handle, d.spec);
}

TEST_CASE("more GPUs than the host has: Nova's No valid host is a try-another-site failure", "[openstack]") {
    Deployment d(Auth::kPassword, "gpu.v100x3");
    OpenStackConnector connector(rig::Clients(), rig::RealClock(), rig::ConnectorOptions());
    const Handle handle = MustCreate(connector, d.request);
    const Observation done = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
    REQUIRE(done.phase == Phase::kFailed);
    CHECK(done.failure == FailureKind::kTryAnotherSite);
    CHECK_THAT(done.reason, Catch::Contains("No valid host was found"));
    CHECK(done.instances.at(0).state == InstanceStatus::kError);
    DeleteAndCheck(connector, handle, d.spec);
}

TEST_CASE("OIDC federation: the user's IAM token becomes a project-scoped token that creates a server", "[openstack]") {
    OpenStackConnector connector(rig::Clients(), rig::RealClock(), rig::ConnectorOptions());
    SECTION("a token the OIDC front accepts") {
        Deployment d(Auth::kOidcFederation, "m1.small");
        const Handle handle = MustCreate(connector, d.request);
        const Observation up = rig::PollUntil(connector, handle, d.spec, Settled, 120s);
        INFO(up.reason);
        CHECK(up.phase == Phase::kReady);
        // Created in the project the federated group maps to, by the ephemeral federated user.
        auto [status, body] = rig::AdminNovaGet("/servers/" + handle.state["servers"][0]["id"].get<std::string>());
        REQUIRE(status == 200);
        CHECK(body["server"]["tenant_id"] == rig::Rig()["project"]["id"]);
        CHECK(body["server"]["user_id"] != rig::Rig()["user"]["id"]);
        DeleteAndCheck(connector, handle, d.spec);
    }
    SECTION("a token the OIDC front refuses") {
        Deployment d(Auth::kOidcFederation, "m1.small");
        d.request.target.credentials.bearer_token = "not-issued-by-the-iam";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(std::get<Failure>(created).message, Catch::Contains("HTTP 401"));
    }
    SECTION("an identity provider the site does not know") {
        Deployment d(Auth::kOidcFederation, "m1.small");
        d.request.target.options["identity_provider"] = "unknown-idp";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
    }
}

TEST_CASE("application credentials work and a re-run Create finds its servers by name", "[openstack]") {
    Deployment d(Auth::kApplicationCredential, "m1.small", 2);
    d.request.placements["vm"] = {"", "m1.small", "", rig::Rig()["image"]["name"]};
    OpenStackConnector connector(rig::Clients(), rig::RealClock(), rig::ConnectorOptions());
    const Handle first = MustCreate(connector, d.request);
    const Handle second = MustCreate(connector, d.request);
    REQUIRE(first.state["servers"].size() == 2);
    CHECK(second.state["servers"] == first.state["servers"]);

    auto [status, body] = rig::AdminNovaGet(
        "/servers/detail?all_tenants=1&name=" + orch::http::UrlEncode("^orch-" + d.request.deployment_id)
    );
    REQUIRE(status == 200);
    CHECK(body["servers"].size() == 2);
    const Observation up = rig::PollUntil(connector, first, d.spec, Settled, 120s);
    INFO(up.reason);
    CHECK(up.phase == Phase::kReady);
    DeleteAndCheck(connector, first, d.spec);
}

TEST_CASE("wrong credentials and unknown catalogue entries are typed failures", "[openstack]") {
    OpenStackConnector connector(rig::Clients(), rig::RealClock(), rig::ConnectorOptions());
    SECTION("a wrong password") {
        Deployment d(Auth::kPassword, "m1.small");
        d.request.target.credentials.password = "wrong";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(std::get<Failure>(created).message, Catch::Contains("401"));
    }
    SECTION("a flavor id the site does not have") {
        Deployment d(Auth::kPassword, "m1.small");
        d.request.placements["vm"].flavor_id = "no-such-flavor";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK_THAT(std::get<Failure>(created).message, Catch::Contains("no-such-flavor"));
    }
    SECTION("Keystone is not there") {
        Deployment d(Auth::kPassword, "m1.small");
        d.request.target.endpoint = "http://127.0.0.1:1/v3";
        auto created = connector.Create(d.request);
        REQUIRE(std::holds_alternative<Failure>(created));
        CHECK(std::get<Failure>(created).kind == FailureKind::kRetryHere);
    }
}
