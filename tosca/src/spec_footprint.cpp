// Memory estimates of DeploymentSpec values: the parsed-template cache is bounded in bytes with
// them. An estimate, not an exact figure: what matters is that it grows with every string and
// JSON value the spec copies out of its template (metadata, properties, inputs, outputs).
#include "tosca/spec_footprint.hpp"

namespace orch::tosca {
namespace {

// A string's heap text beyond its in-object small buffer.
std::size_t Bytes(const std::string& text) {
    return sizeof(std::string) + text.capacity();
}

std::size_t Bytes(const std::vector<std::string>& texts) {
    std::size_t total = sizeof(texts);
    for (const auto& text : texts) {
        total += Bytes(text);
    }
    return total;
}

std::size_t Bytes(const std::map<std::string, std::string>& map) {
    // A map node holds the pair plus three pointers and a colour.
    std::size_t total = sizeof(map);
    for (const auto& [key, value] : map) {
        total += 4 * sizeof(void*) + Bytes(key) + Bytes(value);
    }
    return total;
}

std::size_t Bytes(const ResourceRequest& r) {
    return sizeof(r) + r.gpu.vendor.capacity() + r.gpu.model.capacity() + r.os_type.capacity() +
           r.os_distribution.capacity() + r.os_version.capacity() + r.image.capacity() + r.gpu_driver.capacity() +
           r.cuda_min_version.capacity() + r.instance_type.capacity();
}

std::size_t Bytes(const NodeSpec& node) {
    std::size_t total = sizeof(node) + Bytes(node.name) + Bytes(node.type) + Bytes(node.type_chain) +
                        Bytes(node.removal_list) + Bytes(node.resources) + Bytes(node.host_node) +
                        Bytes(node.depends_on) + Bytes(node.image) + Bytes(node.command) + Bytes(node.arguments) +
                        Bytes(node.environment) + Bytes(node.labels) + Bytes(node.schedule) +
                        ApproxMemoryBytes(node.properties) + ApproxMemoryBytes(node.capabilities) +
                        ApproxMemoryBytes(node.artifacts) + ApproxMemoryBytes(node.operations);
    for (const auto& port : node.ports) {
        total += sizeof(port) + port.protocol.capacity() + port.remote_cidr.capacity() + port.name.capacity();
    }
    for (const auto& volume : node.volumes) {
        total += sizeof(volume) + volume.container_path.capacity() + volume.host_path.capacity() +
                 volume.mode.capacity() + volume.raw.capacity();
    }
    for (const auto& constraint : node.constraints) {
        total += Bytes(constraint);
    }
    for (const auto& requirement : node.requirements) {
        total += sizeof(requirement) + requirement.name.capacity() + requirement.node.capacity() +
                 requirement.capability.capacity() + requirement.relationship.capacity() +
                 ApproxMemoryBytes(requirement.properties);
    }
    return total;
}

}  // namespace

std::size_t ApproxMemoryBytes(const Json& value) {
    std::size_t total = sizeof(Json);
    switch (value.type()) {
        case Json::value_t::string:
            total += Bytes(value.get_ref<const std::string&>());
            break;
        case Json::value_t::array:
            total += sizeof(Json::array_t);
            for (const auto& item : value) {
                total += ApproxMemoryBytes(item);
            }
            break;
        case Json::value_t::object:
            total += sizeof(Json::object_t);
            for (const auto& [key, item] : value.items()) {
                total += 4 * sizeof(void*) + Bytes(key) + ApproxMemoryBytes(item);
            }
            break;
        case Json::value_t::binary:
            total += value.get_binary().size();
            break;
        default:
            break;
    }
    return total;
}

std::size_t ApproxMemoryBytes(const DeploymentSpec& spec) {
    std::size_t total = sizeof(spec) + Bytes(spec.tosca_version) + Bytes(spec.description) +
                        ApproxMemoryBytes(spec.metadata) + ApproxMemoryBytes(spec.inputs);
    for (const auto& node : spec.nodes) {
        total += Bytes(node);
    }
    for (const auto& policy : spec.policies) {
        total += sizeof(policy) + policy.name.capacity() + policy.type.capacity() + policy.sla_id.capacity() +
                 policy.region.capacity() + policy.cloud_id.capacity() + policy.service_id.capacity() +
                 Bytes(policy.targets);
    }
    for (const auto& output : spec.outputs) {
        total +=
            sizeof(output) + output.name.capacity() + output.description.capacity() + ApproxMemoryBytes(output.value);
    }
    return total;
}

}  // namespace orch::tosca
