#include "fake_openstack.hpp"

#include <connectors/openstack_server.hpp>

#include <catch2/catch.hpp>

using orch::Json;
using orch::connectors::BuildServerCreate;
using orch::connectors::DeployRequest;
using orch::connectors::Failure;
using orch::connectors::FailureKind;
using orch::connectors::ServerChoice;

namespace {

// Decodes standard base64 (test helper; the connector only encodes).
std::string Decode(const std::string& text) {
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned value = 0;
    int bits = 0;
    for (const char c : text) {
        if (c == '=') {
            break;
        }
        value = (value << 6U) | static_cast<unsigned>(alphabet.find(c));
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((value >> static_cast<unsigned>(bits)) & 0xFFU);
        }
    }
    return out;
}

orch::tosca::NodeSpec VmNode() {
    orch::tosca::NodeSpec node;
    node.name = "gpu_vm";
    node.type = "tosca.nodes.indigo.Compute";
    node.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    return node;
}

Json Build(const DeployRequest& request, const orch::tosca::NodeSpec& node, int index = 0) {
    ServerChoice choice{"flavor-1", "image-1", "none"};
    auto body = BuildServerCreate(request, node, index, choice);
    if (auto* failure = std::get_if<Failure>(&body)) {
        FAIL(failure->message);
    }
    return std::get<Json>(body);
}

}  // namespace

TEST_CASE("server names derive from the deployment, node and index", "[openstack][server]") {
    CHECK(orch::connectors::OpenStackServerName("dep-1", "gpu_vm", 2) == "orch-dep-1-gpu_vm-2");
    CHECK(orch::connectors::OpenStackServerName("dep-1", "my node/x", 0) == "orch-dep-1-my_node_x-0");
    CHECK(orch::connectors::IsVirtualMachineNode(VmNode()));
    auto job = VmNode();
    job.type = "tosca.nodes.indigo.Qcg.Job";
    job.type_chain = {"tosca.nodes.indigo.Qcg.Job", "tosca.nodes.Root"};
    CHECK_FALSE(orch::connectors::IsVirtualMachineNode(job));
}

TEST_CASE(
    "a server create body carries flavor, image, networks, key pair, metadata and user data", "[openstack][server]"
) {
    DeployRequest request;
    request.deployment_id = "11ed8ab3-6a40-968a-82b7-62f0862dbe46";
    request.target = orch::test::PasswordSite();
    request.target.options["keypair"] = "site-key";
    request.target.options["availability_zone"] = "gpu-zone";
    auto node = VmNode();
    node.properties["tags"] = {{"team", "hep"}};

    const Json server = Build(request, node, 1)["server"];
    CHECK(server["name"] == "orch-11ed8ab3-6a40-968a-82b7-62f0862dbe46-gpu_vm-1");
    CHECK(server["flavorRef"] == "flavor-1");
    CHECK(server["imageRef"] == "image-1");
    CHECK(server["networks"] == "none");
    CHECK(server["key_name"] == "site-key");
    CHECK(server["availability_zone"] == "gpu-zone");
    CHECK(
        server["metadata"] ==
        Json{
            {"team", "hep"},
            {"orch_deployment_id", request.deployment_id},
            {"orch_node", "gpu_vm"},
            {"orch_index", "1"},
            {"orch_service", request.target.service_id}}
    );
    CHECK_FALSE(server.contains("user_data"));

    node.properties["key_name"] = "my-key";
    CHECK(Build(request, node)["server"]["key_name"] == "my-key");
}

TEST_CASE("cloud-init: user_data as written, else a cloud-config for os_users", "[openstack][server]") {
    DeployRequest request;
    request.deployment_id = "d";
    auto node = VmNode();
    SECTION("explicit user data is passed through, base64-encoded") {
        node.properties["user_data"] = "#!/bin/sh\necho hi\n";
        CHECK(Decode(Build(request, node)["server"]["user_data"]) == "#!/bin/sh\necho hi\n");
    }
    SECTION("os_users become cloud-config users with quoted values") {
        node.properties["os_users"] = Json::array({
            {{"os_user_name", "alice"},
             {"os_user_ssh_public_key", "ssh-ed25519 AAAA alice@x"},
             {"os_user_add_to_sudoers", true}},
            {{"os_user_name", "bob: \"evil\""}},
        });
        const std::string text = Decode(Build(request, node)["server"]["user_data"]);
        CHECK(
            text ==
            "#cloud-config\nusers:\n  - default\n"
            "  - name: \"alice\"\n    shell: \"/bin/bash\"\n    sudo: \"ALL=(ALL) NOPASSWD:ALL\"\n"
            "    ssh_authorized_keys:\n      - \"ssh-ed25519 AAAA alice@x\"\n"
            "  - name: \"bob: \\\"evil\\\"\"\n    shell: \"/bin/bash\"\n"
        );
    }
    SECTION("user data over Nova's 65535 characters is the user's error") {
        node.properties["user_data"] = std::string(50'000, 'x');
        auto body = BuildServerCreate(request, node, 0, ServerChoice{"f", "i", "none"});
        REQUIRE(std::holds_alternative<Failure>(body));
        CHECK(std::get<Failure>(body).kind == FailureKind::kUserError);
        CHECK_THAT(std::get<Failure>(body).message, Catch::Contains("gpu_vm") && Catch::Contains("65535"));
    }
}

TEST_CASE("cloud-init: the contextualisation key reaches a sudo account on every server", "[openstack][server]") {
    DeployRequest request;
    request.deployment_id = "d";
    request.ssh_public_key = "ssh-ed25519 AAAAC3Nza orch-d";
    request.ssh_user = "cloudadm";
    auto node = VmNode();
    const std::string account =
        "  - name: \"cloudadm\"\n    shell: \"/bin/bash\"\n    sudo: \"ALL=(ALL) NOPASSWD:ALL\"\n"
        "    ssh_authorized_keys:\n      - \"ssh-ed25519 AAAAC3Nza orch-d\"\n";
    SECTION("alone: a cloud-config with the account") {
        CHECK(Decode(Build(request, node)["server"]["user_data"]) == "#cloud-config\nusers:\n  - default\n" + account);
    }
    SECTION("beside os_users: one users list with both") {
        node.properties["os_users"] = Json::array({{{"os_user_name", "alice"}}});
        CHECK(
            Decode(Build(request, node)["server"]["user_data"]) ==
            "#cloud-config\nusers:\n  - default\n  - name: \"alice\"\n    shell: \"/bin/bash\"\n" + account
        );
    }
    SECTION("beside the user's own user data: a MIME multipart keeping it whole") {
        node.properties["user_data"] = "#!/bin/sh\necho hi\n";
        const std::string text = Decode(Build(request, node)["server"]["user_data"]);
        CHECK_THAT(text, Catch::StartsWith("Content-Type: multipart/mixed; boundary="));
        CHECK_THAT(text, Catch::Contains("Content-Type: text/x-shellscript\n\n#!/bin/sh\necho hi\n"));
        CHECK_THAT(
            text, Catch::Contains("Content-Type: text/cloud-config\n\n#cloud-config\nusers:\n  - default\n" + account)
        );
    }
}
