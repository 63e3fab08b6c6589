#include "spec/spec_builder.hpp"

#include "tosca/scalar_unit.hpp"
#include "tosca/target_routing.hpp"

#include <algorithm>
#include <cmath>

namespace orch::tosca {
namespace {

constexpr int kMaxHostChain = 16;

const Json* Member(const Json& object, std::string_view key) {
    if (!object.is_object()) {
        return nullptr;
    }
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

const Json* CapabilityValue(const NodeTemplate& node, std::string_view capability, std::string_view property) {
    const Json* cap = Member(node.capability_values, capability);
    return cap != nullptr ? Member(*cap, property) : nullptr;
}

std::optional<std::int64_t> AsInt(const Json* value) {
    if (value == nullptr) {
        return std::nullopt;
    }
    if (value->is_number_integer() || value->is_number_unsigned()) {
        return value->get<std::int64_t>();
    }
    if (value->is_number_float() && std::floor(value->get<double>()) == value->get<double>()) {
        return static_cast<std::int64_t>(value->get<double>());
    }
    return std::nullopt;
}

std::optional<double> AsNumber(const Json* value) {
    if (value == nullptr || !value->is_number()) {
        return std::nullopt;
    }
    return value->get<double>();
}

std::string AsText(const Json* value) {
    if (value == nullptr) {
        return "";
    }
    if (value->is_string()) {
        return value->get<std::string>();
    }
    if (value->is_number() || value->is_boolean()) {
        return value->dump();
    }
    return "";
}

std::optional<std::uint64_t> Megabytes(const Json* value) {
    if (value == nullptr || !value->is_string()) {
        return std::nullopt;
    }
    const auto size = ParseScalarUnit(value->get<std::string>(), ScalarKind::kSize);
    // Decimal megabytes, as the original converted mem_size and disk_size.
    return size ? SizeInUnits(*size, 1e6) : std::nullopt;
}

std::map<std::string, std::string> TextMap(const Json* value) {
    std::map<std::string, std::string> out;
    if (value == nullptr || !value->is_object()) {
        return out;
    }
    for (const auto& [key, item] : value->items()) {
        if (item.is_string() || item.is_number() || item.is_boolean()) {
            out[key] = AsText(&item);
        } else if (!item.is_null()) {
            out[key] = item.dump(-1, ' ', false, Json::error_handler_t::replace);
        }
    }
    return out;
}

bool HasResources(const NodeTemplate& node) {
    return CapabilityValue(node, "host", "num_cpus") != nullptr ||
           CapabilityValue(node, "host", "mem_size") != nullptr ||
           CapabilityValue(node, "host", "disk_size") != nullptr ||
           CapabilityValue(node, "host", "num_gpus") != nullptr;
}

/// The node whose host capability sizes this one: itself, or the first node up its HostedOn chain.
const NodeTemplate* ResourceNode(const NodeTemplate& node) {
    const NodeTemplate* current = &node;
    for (int i = 0; current != nullptr && i < kMaxHostChain; ++i, current = current->host) {
        if (HasResources(*current)) {
            return current;
        }
    }
    return nullptr;
}

bool Derives(const NodeTemplate& node, std::string_view type) {
    return node.type != nullptr && node.type->DerivesFrom(type);
}

DeploymentKind KindOf(const Topology& topology) {
    std::vector<const std::vector<std::string>*> chains;
    chains.reserve(topology.nodes.size());
    for (const auto& node : topology.nodes) {
        if (node->type != nullptr) {
            chains.push_back(&node->type->chain);
        }
    }
    return RouteDeployment(chains);
}

PortSpec ToPort(const Json& value, std::string name) {
    PortSpec port;
    port.name = std::move(name);
    port.target = static_cast<int>(AsInt(Member(value, "source")).value_or(0));
    if (const auto published = AsInt(Member(value, "target"))) {
        port.published = static_cast<int>(*published);
    }
    if (const Json* protocol = Member(value, "protocol"); protocol != nullptr && protocol->is_string()) {
        port.protocol = protocol->get<std::string>();
    }
    port.remote_cidr = AsText(Member(value, "remote_cidr"));
    return port;
}

void FillResources(const NodeTemplate& node, NodeSpec& spec) {
    ResourceRequest& r = spec.resources;
    if (const NodeTemplate* source = ResourceNode(node)) {
        r.cpus = AsNumber(CapabilityValue(*source, "host", "num_cpus"));
        r.mem_mb = Megabytes(CapabilityValue(*source, "host", "mem_size"));
        r.disk_mb = Megabytes(CapabilityValue(*source, "host", "disk_size"));
        r.gpu.count = static_cast<int>(AsInt(CapabilityValue(*source, "host", "num_gpus")).value_or(0));
        r.gpu.vendor = AsText(CapabilityValue(*source, "host", "gpu_vendor"));
        r.gpu.model = AsText(CapabilityValue(*source, "host", "gpu_model"));
        r.gpu.memory_mb = Megabytes(CapabilityValue(*source, "host", "gpu_memory"));
        r.instance_type = AsText(CapabilityValue(*source, "host", "instance_type"));
        if (const Json* publish = CapabilityValue(*source, "host", "publish_ports");
            publish != nullptr && publish->is_array()) {
            for (const auto& port : *publish) {
                spec.ports.push_back(ToPort(port, ""));
            }
        }
        if (const Json* volumes = CapabilityValue(*source, "host", "volumes");
            volumes != nullptr && volumes->is_array()) {
            for (const auto& volume : *volumes) {
                if (volume.is_string()) {
                    spec.volumes.push_back(ParseVolume(volume.get<std::string>()));
                }
            }
        }
    }
    if (Derives(node, "tosca.nodes.indigo.Batch.Job")) {
        const auto cores = AsInt(Member(node.property_values, "total_cores"));
        const auto per_node = AsInt(Member(node.property_values, "cores_per_node"));
        if (cores || per_node) {
            r.cpus = static_cast<double>(cores ? *cores : *per_node);
        }
        if (const auto memory = AsInt(Member(node.property_values, "memory_per_node")); memory && *memory >= 0) {
            r.mem_mb = static_cast<std::uint64_t>(*memory);
        }
        r.gpu.count = static_cast<int>(AsInt(Member(node.property_values, "gpus")).value_or(r.gpu.count));
    }
    r.os_type = AsText(CapabilityValue(node, "os", "type"));
    r.os_distribution = AsText(CapabilityValue(node, "os", "distribution"));
    r.os_version = AsText(CapabilityValue(node, "os", "version"));
    r.image = AsText(CapabilityValue(node, "os", "image"));
    r.gpu_driver = AsText(CapabilityValue(node, "os", "gpu_driver"));
    r.cuda_min_version = AsText(CapabilityValue(node, "os", "cuda_min_version"));
    if (const Json* cuda = CapabilityValue(node, "os", "cuda_support"); cuda != nullptr && cuda->is_boolean()) {
        r.cuda_support = cuda->get<bool>();
    }
}

void FillScaling(const NodeTemplate& node, NodeSpec& spec) {
    if (Member(node.capability_values, "scalable") == nullptr) {
        return;
    }
    if (const auto count = AsInt(CapabilityValue(node, "scalable", "count")); count && *count >= 0) {
        spec.count = static_cast<int>(std::min<std::int64_t>(*count, 1'000'000));
    }
    if (const auto min = AsInt(CapabilityValue(node, "scalable", "min_instances"))) {
        spec.min_instances = static_cast<int>(*min);
    }
    if (const auto max = AsInt(CapabilityValue(node, "scalable", "max_instances"))) {
        spec.max_instances = static_cast<int>(*max);
    }
    if (const Json* removal = CapabilityValue(node, "scalable", "removal_list");
        removal != nullptr && removal->is_array()) {
        for (const auto& id : *removal) {
            if (id.is_string()) {
                spec.removal_list.push_back(id.get<std::string>());
            }
        }
    }
}

void FillWorkload(const NodeTemplate& node, NodeSpec& spec) {
    const Json& props = node.property_values;
    const Json* image = Member(node.artifact_values, "image");
    spec.image = image != nullptr ? AsText(Member(*image, "file")) : "";
    if (spec.image.empty()) {
        spec.image = spec.resources.image;
    }
    spec.command = AsText(Member(props, "command"));
    if (spec.command.empty()) {
        spec.command = AsText(Member(props, "executable"));
    }
    if (const Json* args = Member(props, "arguments"); args != nullptr && args->is_array()) {
        for (const auto& arg : *args) {
            spec.arguments.push_back(AsText(&arg));
        }
    }
    spec.environment = TextMap(Member(props, "environment_variables"));
    for (auto& [key, value] : TextMap(Member(props, "environment"))) {
        spec.environment.emplace(key, std::move(value));
    }
    spec.labels = TextMap(Member(props, "labels"));
    if (const Json* constraints = Member(props, "constraints"); constraints != nullptr && constraints->is_array()) {
        for (const auto& row : *constraints) {
            std::vector<std::string> items;
            if (row.is_array()) {
                for (const auto& item : row) {
                    items.push_back(AsText(&item));
                }
            }
            spec.constraints.push_back(std::move(items));
        }
    }
    spec.schedule = AsText(Member(props, "schedule"));
    // "priviliged" is how the devel_deep INDIGO types spell it.
    for (const char* key : {"privileged", "priviliged"}) {
        if (const Json* flag = Member(props, key); flag != nullptr && flag->is_boolean()) {
            spec.privileged = flag->get<bool>();
        }
    }
    if (const Json* flag = Member(props, "force_pull_image"); flag != nullptr && flag->is_boolean()) {
        spec.force_pull_image = flag->get<bool>();
    }
    if (const Json* ports = CapabilityValue(node, "endpoint", "ports"); ports != nullptr && ports->is_object()) {
        for (const auto& [name, port] : ports->items()) {
            spec.ports.push_back(ToPort(port, name));
        }
    }
}

NodeSpec BuildNode(const NodeTemplate& node) {
    NodeSpec spec;
    spec.name = node.name;
    spec.type = node.type->name();
    spec.type_chain = node.type->chain;
    spec.properties = node.property_values;
    for (const auto* def : node.type->properties) {
        spec.declared_properties.push_back(def->name);
    }
    spec.capabilities = node.capability_values;
    spec.artifacts = node.artifact_values;
    spec.operations = node.operation_values;
    spec.host_node = node.host != nullptr ? node.host->name : "";
    for (const auto& req : node.requirements) {
        RequirementSpec r;
        r.name = req.name;
        r.node = req.target_node != nullptr ? req.target_node->name : req.target;
        r.capability = req.target_capability != nullptr ? req.target_capability->name : req.capability;
        r.relationship = req.relationship_type != nullptr ? req.relationship_type->name() : "";
        r.properties = req.relationship_values;
        spec.requirements.push_back(std::move(r));
        if (req.target_node != nullptr && req.target_node != node.host &&
            std::find(spec.depends_on.begin(), spec.depends_on.end(), req.target_node->name) == spec.depends_on.end()) {
            spec.depends_on.push_back(req.target_node->name);
        }
    }
    FillScaling(node, spec);
    FillResources(node, spec);
    FillWorkload(node, spec);
    return spec;
}

}  // namespace

VolumeSpec ParseVolume(const std::string& text) {
    VolumeSpec volume;
    volume.raw = text;
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t colon = text.find(':', start);
        parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
        if (colon == std::string::npos) {
            break;
        }
        start = colon + 1;
    }
    const auto mode = [](std::string m) {
        std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) {
            return static_cast<char>(std::toupper(c));
        });
        return m;
    };
    if (parts.size() == 1) {
        volume.container_path = parts[0];
    } else if (parts.size() == 2) {
        volume.container_path = parts[0];
        volume.mode = mode(parts[1]);
    } else if (parts.size() == 3) {
        volume.host_path = parts[0];
        volume.container_path = parts[1];
        volume.mode = mode(parts[2]);
    } else {
        volume.container_path = parts[1];  // name:path:mode:provider:driver (external volume)
        volume.mode = mode(parts[2]);
    }
    return volume;
}

DeploymentSpec BuildSpec(const Topology& topology, const yaml::Node& root, const std::string& version) {
    DeploymentSpec spec;
    spec.kind = KindOf(topology);
    spec.tosca_version = version;
    if (const yaml::Node* description = root.Find("description"); description != nullptr && description->IsScalar()) {
        spec.description = description->text;
    }
    if (const yaml::Node* metadata = root.Find("metadata"); metadata != nullptr && metadata->IsMapping()) {
        spec.metadata = yaml::ToJson(*metadata);
    }
    for (const auto& node : topology.nodes) {
        if (node->type != nullptr) {
            spec.nodes.push_back(BuildNode(*node));
        }
    }
    for (const auto& policy : topology.policies) {
        if (policy.type == nullptr || !policy.type->DerivesFrom("tosca.policies.Placement")) {
            continue;
        }
        PlacementPolicy p;
        p.name = policy.name;
        p.type = policy.type->name();
        p.sla_id = AsText(Member(policy.property_values, "sla_id"));
        p.region = AsText(Member(policy.property_values, "region"));
        p.cloud_id = AsText(Member(policy.property_values, "cloud_id"));
        p.service_id = AsText(Member(policy.property_values, "service_id"));
        p.targets = policy.targets;
        spec.policies.push_back(std::move(p));
    }
    for (const auto& output : topology.outputs) {
        spec.outputs.push_back(OutputSpec{output.name, output.description, output.value, output.resolved});
    }
    for (const auto& input : topology.inputs) {
        if (input.value != nullptr) {
            spec.inputs[input.def.name] = input.json;
        }
    }
    return spec;
}

}  // namespace orch::tosca
