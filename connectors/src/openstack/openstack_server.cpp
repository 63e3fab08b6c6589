#include "connectors/openstack_server.hpp"

#include "common/json_text.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/workload.hpp"

#include <arpa/inet.h>

#include <cctype>
#include <cstdint>

namespace orch::connectors {
namespace {

constexpr std::string_view kComputeType = "tosca.nodes.Compute";
constexpr std::size_t kMaxUserData = 65535;  // Nova's limit on the base64 text
constexpr std::size_t kMaxMetadataValue = 255;

// One os_users entry (tosca.datatypes.indigo.User) as a cloud-config user; JSON strings are valid
// YAML scalars, so every value is written quoted and nothing in it can break the document.
std::string CloudConfigUser(const Json& user) {
    const std::string name = user.value("os_user_name", "");
    if (name.empty()) {
        return {};
    }
    std::string out = "  - name: " + JsonQuote(name) + "\n    shell: \"/bin/bash\"\n";
    if (user.value("os_user_add_to_sudoers", false)) {
        out += "    sudo: \"ALL=(ALL) NOPASSWD:ALL\"\n";
    }
    if (const std::string key = user.value("os_user_ssh_public_key", ""); !key.empty()) {
        out += "    ssh_authorized_keys:\n      - " + JsonQuote(key) + "\n";
    }
    return out;
}

// The account native contextualisation logs into (DeployRequest::ssh_public_key).
std::string ContextualisationUser(const DeployRequest& request) {
    if (request.ssh_public_key.empty()) {
        return {};
    }
    return CloudConfigUser(
        {{"os_user_name", request.ssh_user},
         {"os_user_add_to_sudoers", true},
         {"os_user_ssh_public_key", request.ssh_public_key}}
    );
}

// The user's own user data and the contextualisation account as one MIME multipart message,
// which cloud-init splits into its parts (both run; cloud-configs are merged). The part type
// follows the user data's first line, as cloud-init itself would guess it.
std::string Multipart(const std::string& own, const std::string& cloud_config) {
    const std::string boundary = "orch-contextualisation-part-boundary";
    std::string type = "text/plain";
    if (own.rfind("#cloud-config", 0) == 0) {
        type = "text/cloud-config";
    } else if (own.rfind("#!", 0) == 0) {
        type = "text/x-shellscript";
    }
    return "Content-Type: multipart/mixed; boundary=\"" + boundary + "\"\nMIME-Version: 1.0\n\n--" + boundary +
           "\nContent-Type: " + type + "\n\n" + own + "\n--" + boundary + "\nContent-Type: text/cloud-config\n\n" +
           cloud_config + "\n--" + boundary + "--\n";
}

std::string UserData(const DeployRequest& request, const tosca::NodeSpec& node) {
    const std::string contextualisation = ContextualisationUser(request);
    if (std::string explicit_data = PropertyString(node, "user_data"); !explicit_data.empty()) {
        if (contextualisation.empty()) {
            return explicit_data;
        }
        return Multipart(explicit_data, "#cloud-config\nusers:\n  - default\n" + contextualisation);
    }
    std::string entries;
    const auto users = node.properties.find("os_users");
    if (users != node.properties.end() && users->is_array()) {
        for (const auto& user : *users) {
            if (user.is_object()) {
                entries += CloudConfigUser(user);
            }
        }
    }
    entries += contextualisation;
    return entries.empty() ? std::string() : "#cloud-config\nusers:\n  - default\n" + entries;
}

Json Metadata(const DeployRequest& request, const tosca::NodeSpec& node, int index) {
    Json metadata = Json::object();
    if (const auto tags = node.properties.find("tags"); tags != node.properties.end() && tags->is_object()) {
        for (const auto& [key, value] : tags->items()) {
            std::string text = value.is_string() ? value.get<std::string>() : value.dump();
            metadata[key.substr(0, kMaxMetadataValue)] = text.substr(0, kMaxMetadataValue);
        }
    }
    metadata["orch_deployment_id"] = request.deployment_id;
    metadata["orch_node"] = node.name.substr(0, kMaxMetadataValue);
    metadata["orch_index"] = std::to_string(index);
    // Which catalogue service made it: two services on one cloud and project see each other's
    // servers under the same deployment name prefix.
    metadata["orch_service"] = request.target.service_id.substr(0, kMaxMetadataValue);
    return metadata;
}

bool IsPrivateV4(std::uint32_t ip) {
    const auto in = [ip](std::uint32_t net, int bits) {
        return (ip >> (32 - bits)) == (net >> (32 - bits));
    };
    return in(0x0A000000U, 8) || in(0xAC100000U, 12) || in(0xC0A80000U, 16) || in(0x64400000U, 10) ||
           in(0x7F000000U, 8) || in(0xA9FE0000U, 16);
}

}  // namespace

std::string OpenStackServerName(const std::string& deployment_id, const std::string& node, int index) {
    std::string name = "orch-" + deployment_id + "-" + node + "-" + std::to_string(index);
    for (char& c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_' && c != '.') {
            c = '_';
        }
    }
    return name;
}

bool IsVirtualMachineNode(const tosca::NodeSpec& node) {
    return HasType(node, kComputeType);
}

bool IsPublicAddress(const std::string& address) {
    in_addr v4{};
    if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
        return !IsPrivateV4(ntohl(v4.s_addr));
    }
    in6_addr v6{};
    if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
        const unsigned first = v6.s6_addr[0];
        const bool unique_local = (first & 0xFEU) == 0xFCU;
        const bool link_local = first == 0xFEU && (v6.s6_addr[1] & 0xC0U) == 0x80U;
        const bool loopback = IN6_IS_ADDR_LOOPBACK(&v6);
        return !(unique_local || link_local || loopback);
    }
    return false;
}

ConnectorResult<Json> BuildServerCreate(
    const DeployRequest& request, const tosca::NodeSpec& node, int index, const ServerChoice& choice
) {
    Json server = {
        {"name", OpenStackServerName(request.deployment_id, node.name, index)},
        {"flavorRef", choice.flavor_id},
        {"imageRef", choice.image_id},
        {"networks", choice.networks},
        {"metadata", Metadata(request, node, index)},
    };
    std::string key_name = PropertyString(node, "key_name");
    if (key_name.empty()) {
        key_name = OptionString(request.target, "keypair");
    }
    if (!key_name.empty()) {
        server["key_name"] = key_name;
    }
    if (const std::string zone = OptionString(request.target, "availability_zone"); !zone.empty()) {
        server["availability_zone"] = zone;
    }
    if (const std::string data = UserData(request, node); !data.empty()) {
        std::string encoded = Base64Encode(data);
        if (encoded.size() > kMaxUserData) {
            return Failure{
                FailureKind::kUserError,
                "node '" + node.name + "': the cloud-init user data is " + std::to_string(encoded.size()) +
                    " characters in base64; Nova accepts at most " + std::to_string(kMaxUserData),
            };
        }
        server["user_data"] = std::move(encoded);
    }
    return Json{{"server", std::move(server)}};
}

}  // namespace orch::connectors
