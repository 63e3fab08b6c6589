#include "connectors/im_template.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace orch::connectors {
namespace {

constexpr int kMaxDepth = 64;

YAML::Node ToYaml(const Json& value) {
    switch (value.type()) {
        case Json::value_t::object: {
            YAML::Node node(YAML::NodeType::Map);
            for (const auto& [key, item] : value.items()) {
                node[key] = ToYaml(item);
            }
            return node;
        }
        case Json::value_t::array: {
            YAML::Node node(YAML::NodeType::Sequence);
            for (const auto& item : value) {
                node.push_back(ToYaml(item));
            }
            return node;
        }
        case Json::value_t::string:
            return YAML::Node(value.get<std::string>());
        case Json::value_t::boolean:
            return YAML::Node(value.get<bool>());
        case Json::value_t::number_integer:
            return YAML::Node(value.get<std::int64_t>());
        case Json::value_t::number_unsigned:
            return YAML::Node(value.get<std::uint64_t>());
        case Json::value_t::number_float:
            return YAML::Node(value.get<double>());
        default:
            return YAML::Node(YAML::NodeType::Null);
    }
}

/// The value `{get_input: name}` (or `[name, index...]`) stands for, or null when it names
/// nothing the spec knows (left as written: IM reports it, as it would for the original).
std::optional<YAML::Node> InputValue(const YAML::Node& argument, const Json& inputs) {
    std::string name;
    std::vector<YAML::Node> path;
    if (argument.IsScalar()) {
        name = argument.Scalar();
    } else if (argument.IsSequence() && argument.size() >= 1 && argument[0].IsScalar()) {
        name = argument[0].Scalar();
        for (std::size_t i = 1; i < argument.size(); ++i) {
            path.push_back(argument[i]);
        }
    } else {
        return std::nullopt;
    }
    const auto it = inputs.find(name);
    if (it == inputs.end()) {
        return std::nullopt;
    }
    const Json* value = &*it;
    for (const auto& step : path) {
        if (!step.IsScalar()) {
            return std::nullopt;
        }
        if (value->is_array()) {
            std::size_t index = 0;
            try {
                index = step.as<std::size_t>();
            } catch (const YAML::Exception&) {
                return std::nullopt;
            }
            if (index >= value->size()) {
                return std::nullopt;
            }
            value = &(*value)[index];
        } else if (value->is_object() && value->contains(step.Scalar())) {
            value = &(*value)[step.Scalar()];
        } else {
            return std::nullopt;
        }
    }
    return ToYaml(*value);
}

/// Replaces get_input calls below `node` in place.
void ResolveInputs(YAML::Node node, const Json& inputs, int depth) {
    if (depth > kMaxDepth) {
        return;
    }
    if (node.IsMap()) {
        for (auto it = node.begin(); it != node.end(); ++it) {
            YAML::Node value = it->second;
            if (value.IsMap() && value.size() == 1 && value.begin()->first.Scalar() == "get_input") {
                if (auto resolved = InputValue(value.begin()->second, inputs)) {
                    node[it->first.Scalar()] = *resolved;
                }
                continue;
            }
            ResolveInputs(value, inputs, depth + 1);
        }
    } else if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i) {
            YAML::Node item = node[i];
            if (item.IsMap() && item.size() == 1 && item.begin()->first.Scalar() == "get_input") {
                if (auto resolved = InputValue(item.begin()->second, inputs)) {
                    node[i] = *resolved;
                }
                continue;
            }
            ResolveInputs(item, inputs, depth + 1);
        }
    }
}

std::string Host(const std::string& url) {
    std::string rest = url;
    if (const auto scheme = rest.find("://"); scheme != std::string::npos) {
        rest = rest.substr(scheme + 3);
    }
    return rest.substr(0, rest.find_first_of("/:"));
}

/// The image as IM wants it: a provider URL (ost://keystone-host/id, one://host/id).
std::string ImageUrl(const DeployRequest& request, const NodePlacement& placement) {
    const std::string& image = placement.image_id.empty() ? placement.image_name : placement.image_id;
    if (image.empty() || image.find("://") != std::string::npos) {
        return image;
    }
    const auto type = request.target.options.value("im_cloud_type", std::string("OpenStack"));
    const std::string scheme = type == "OpenNebula" ? "one" : type == "EC2" ? "aws" : "ost";
    return scheme + "://" + Host(request.target.endpoint) + "/" + image;
}

void ApplyPlacement(YAML::Node node, const DeployRequest& request, const NodePlacement& placement) {
    YAML::Node capabilities = node["capabilities"];
    if (!placement.flavor_name.empty()) {
        capabilities["host"]["properties"]["instance_type"] = placement.flavor_name;
    }
    if (const std::string image = ImageUrl(request, placement); !image.empty()) {
        capabilities["os"]["properties"]["image"] = image;
    }
}

bool Declares(const tosca::NodeSpec& node, std::string_view property) {
    return std::find(node.declared_properties.begin(), node.declared_properties.end(), property) !=
           node.declared_properties.end();
}

std::string TargetOption(const DeployRequest& request, const char* key) {
    const Json& options = request.target.options;
    const auto it = options.is_object() ? options.find(key) : options.end();
    return it != options.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// `properties` of a node, made when missing (the node is a map: checked by the caller).
YAML::Node PropertiesOf(YAML::Node& node) {
    if (!node["properties"].IsMap()) {
        node["properties"] = YAML::Node(YAML::NodeType::Map);
    }
    return node["properties"];
}

/// Sets `key` when the type declares it and the template leaves it unset (a value the user
/// wrote wins over the catalogue's) and `value` is known.
void FillUnset(YAML::Node& node, const tosca::NodeSpec& spec, const char* key, const std::string& value) {
    if (value.empty() || !Declares(spec, key)) {
        return;
    }
    YAML::Node properties = PropertiesOf(node);
    if (!properties[key].IsDefined() || properties[key].IsNull()) {
        properties[key] = value;
    }
}

/// A token claim as a VM tag value: IM joins the tags into RADL's `instance_tags` as
/// "K=V,K=V", so a ',' or '=' (or a control character) in a user's name could forge another
/// tag; those are dropped. At most kMaxTagBytes, cut on a UTF-8 character boundary.
constexpr std::size_t kMaxTagBytes = 256;
std::string TagValue(const std::string& claim) {
    std::string out;
    for (const char c : claim) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7f && c != ',' && c != '=') {
            out += c;
        }
    }
    if (out.size() > kMaxTagBytes) {
        std::size_t cut = kMaxTagBytes;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0U) == 0x80U) {
            --cut;  // out[cut] continues a character: cut before that character starts
        }
        out.resize(cut);
    }
    return out;
}

/// The original's deployment tags on the VM (api-contract.md, deploy step), added to the tags
/// the user wrote: PAAS_DEP_USER is the owner's preferred_username (the original's 3.0.0
/// change log, CLOUD-2135), PAAS_DEP_USER_EMAIL the owner's email, each when known.
void AddTags(YAML::Node& node, const DeployRequest& request, const std::string& orchestrator_url) {
    YAML::Node properties = PropertiesOf(node);
    if (!properties["tags"].IsMap()) {
        properties["tags"] = YAML::Node(YAML::NodeType::Map);
    }
    YAML::Node tags = properties["tags"];
    if (!orchestrator_url.empty()) {
        tags["PAAS_URL"] = orchestrator_url;
    }
    tags["PAAS_DEP_UUID"] = request.deployment_id;
    if (std::string user = TagValue(request.owner_name); !user.empty()) {
        tags["PAAS_DEP_USER"] = user;
    }
    if (std::string email = TagValue(request.owner_email); !email.empty()) {
        tags["PAAS_DEP_USER_EMAIL"] = email;
    }
}

/// Network nodes: the project's public or private network by the node's network_type, as the
/// original fills them from the CMDB (tosca.md §2.7); a private one gets the site's proxy host.
void FillNetwork(YAML::Node& node, const tosca::NodeSpec& spec, const DeployRequest& request) {
    const std::string type = spec.properties.value("network_type", std::string());
    if (type == "public") {
        FillUnset(node, spec, "network_name", TargetOption(request, "public_network"));
    } else if (type == "private") {
        FillUnset(node, spec, "network_name", TargetOption(request, "network"));
        FillUnset(node, spec, "proxy_host", TargetOption(request, "proxy_host"));
    }
}

/// The ElasticCluster's callback settings, which CLUES uses to scale the deployment through
/// this orchestrator; the original overwrites them, so do we (a template cannot know its id).
void FillElasticCluster(
    YAML::Node& node,
    const tosca::NodeSpec& spec,
    const DeployRequest& request,
    const std::string& orchestrator_url,
    const CluesClient* clues
) {
    const auto set = [&](const char* key, const std::string& value) {
        if (!value.empty() && Declares(spec, key)) {
            PropertiesOf(node)[key] = value;
        }
    };
    set("deployment_id", request.deployment_id);
    set("orchestrator_url", orchestrator_url);
    set("iam_access_token", request.target.credentials.bearer_token);
    if (clues != nullptr) {
        set("iam_clues_client_id", clues->id);
        set("iam_clues_client_secret", clues->secret);
    }
}

/// What only the orchestrator knows, per node (see ImTemplate's comment).
void FillOrchestratorValues(
    const YAML::Node& nodes, const DeployRequest& request, const std::string& url, const CluesClient* clues
) {
    for (const auto& spec : request.spec->nodes) {
        YAML::Node node = nodes[spec.name];
        if (!node.IsMap()) {
            continue;
        }
        if (tosca::DerivesFrom(spec, "tosca.nodes.indigo.Compute") && Declares(spec, "tags")) {
            AddTags(node, request, url);
        } else if (tosca::DerivesFrom(spec, "tosca.nodes.network.Network")) {
            FillNetwork(node, spec, request);
        } else if (tosca::DerivesFrom(spec, "tosca.nodes.indigo.ElasticCluster")) {
            FillElasticCluster(node, spec, request, url, clues);
        }
    }
}

}  // namespace

ConnectorResult<std::string> ImTemplate(
    const DeployRequest& request, std::size_t max_bytes, const std::string& orchestrator_url, const CluesClient* clues
) {
    if (request.spec == nullptr || request.template_text.empty()) {
        return Failure{FailureKind::kUserError, "an IM deployment needs the template and its validated spec"};
    }
    if (request.template_text.size() > max_bytes) {
        return Failure{FailureKind::kUserError, "the template is larger than IM deployments allow"};
    }
    YAML::Node root;
    try {
        root = YAML::Load(request.template_text);
    } catch (const YAML::Exception& e) {
        return Failure{FailureKind::kUserError, std::string("the template cannot be re-read for IM: ") + e.what()};
    }
    YAML::Node topology = root["topology_template"];
    if (!topology.IsMap() || !topology["node_templates"].IsMap()) {
        return Failure{FailureKind::kUserError, "the template has no node_templates to send to IM"};
    }
    ResolveInputs(topology, request.spec->inputs, 0);
    topology.remove("inputs");
    const YAML::Node nodes = topology["node_templates"];  // const: a lookup must not add the node
    for (auto it = nodes.begin(); it != nodes.end(); ++it) {
        // As the original: the removal_list names the orchestrator's resources, not IM's VMs;
        // the connector removes those VMs itself before sending the new counts.
        // Step by step with reset(): yaml-cpp throws on a lookup below a missing key, and
        // assigning a node would overwrite its content instead of moving to the child.
        YAML::Node scalable;
        scalable.reset(it->second);
        for (const char* key : {"capabilities", "scalable", "properties"}) {
            const YAML::Node parent = scalable;  // const: a lookup must not add the key
            const YAML::Node child = parent.IsMap() ? parent[key] : YAML::Node();
            scalable.reset(child.IsDefined() ? child : YAML::Node());
        }
        if (scalable.IsMap()) {
            scalable.remove("removal_list");
        }
    }
    for (const auto& [name, placement] : request.placements) {
        // As the original: flavor and image go to INDIGO Compute nodes, whose capabilities
        // declare instance_type and image (the normative Compute's do not).
        const tosca::NodeSpec* spec_node = request.spec->FindNode(name);
        if (spec_node == nullptr || !tosca::DerivesFrom(*spec_node, "tosca.nodes.indigo.Compute")) {
            continue;
        }
        if (YAML::Node node = nodes[name]; node.IsMap()) {
            ApplyPlacement(node, request, placement);
        }
    }
    FillOrchestratorValues(nodes, request, orchestrator_url, clues);
    YAML::Emitter out;
    out << root;
    if (!out.good()) {
        return Failure{FailureKind::kUserError, "the template could not be written for IM: " + out.GetLastError()};
    }
    if (out.size() > max_bytes) {
        return Failure{FailureKind::kUserError, "the template grew larger than IM deployments allow"};
    }
    return std::string(out.c_str(), out.size());
}

}  // namespace orch::connectors
