#include "orchestrator/workflow/iam_clients.hpp"

#include <yaml-cpp/yaml.h>

namespace orch::workflow {
namespace {

std::string StringProperty(const tosca::NodeSpec& node, const char* key) {
    const auto it = node.properties.find(key);
    return it != node.properties.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> StringListProperty(const tosca::NodeSpec& node, const char* key) {
    std::vector<std::string> out;
    const auto it = node.properties.find(key);
    if (it == node.properties.end() || !it->is_array()) {
        return out;
    }
    for (const auto& item : *it) {
        if (item.is_string()) {
            out.push_back(item.get<std::string>());
        }
    }
    return out;
}

}  // namespace

std::vector<IamClientRequest> IamClientRequests(const tosca::DeploymentSpec& spec) {
    std::vector<IamClientRequest> out;
    for (const tosca::NodeSpec* node : spec.NodesOfType(kIamClientType)) {
        out.push_back(
            {node->name,
             StringProperty(*node, "issuer"),
             StringProperty(*node, "scopes"),
             StringListProperty(*node, "redirect_uris")}
        );
    }
    return out;
}

Result<std::string> WithIamClients(
    const std::string& template_text, const std::vector<IamClientGrant>& grants, std::string_view owner_subject
) {
    // The text already passed the engine's bounded parse; yaml-cpp only re-reads it to write.
    YAML::Node root;
    try {
        root = YAML::Load(template_text);
    } catch (const YAML::Exception&) {
        return Error::InvalidArgument("the template cannot be re-read to fill its IAM clients");
    }
    YAML::Node topology = root["topology_template"];
    YAML::Node nodes = topology.IsMap() ? topology["node_templates"] : YAML::Node();
    if (!nodes.IsMap()) {
        return Error::InvalidArgument("the template has no node_templates for its IAM clients");
    }
    for (const auto& grant : grants) {
        YAML::Node node = nodes[grant.node_name];
        if (!node.IsMap()) {
            return Error::InvalidArgument("the template has no node '" + grant.node_name + "'");
        }
        if (!node["properties"].IsMap()) {
            node["properties"] = YAML::Node(YAML::NodeType::Map);
        }
        YAML::Node properties = node["properties"];
        properties["client_id"] = grant.client_id;
        properties["client_secret"] = grant.client_secret;
        properties["issuer"] = grant.issuer;
        properties["owner"] = std::string(owner_subject);
    }
    YAML::Emitter out;
    out << root;
    if (!out.good()) {
        return Error::InvalidArgument("the template could not be written with its IAM clients");
    }
    return std::string(out.c_str(), out.size());
}

}  // namespace orch::workflow
