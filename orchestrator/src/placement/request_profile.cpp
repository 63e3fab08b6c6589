#include "request_profile.hpp"

#include <algorithm>

namespace orch::placement {
namespace {

bool TypeChainHas(const tosca::NodeSpec& node, std::string_view type) {
    return node.type == type || tosca::DerivesFrom(node, type);
}

void AddGpuNeed(std::vector<GpuNeed>& needs, const NodeNeed& node) {
    if (node.gpu.count <= 0) {
        return;
    }
    const std::uint64_t memory = node.gpu.memory_mb.value_or(0);
    for (auto& need : needs) {
        if (need.vendor == node.gpu.vendor && need.model == node.gpu.model && need.memory_mb == memory) {
            need.total += node.gpu.count * node.count;
            return;
        }
    }
    needs.push_back({node.gpu.vendor, node.gpu.model, memory, node.gpu.count * node.count});
}

}  // namespace

RequestProfile BuildProfile(const tosca::DeploymentSpec& spec) {
    RequestProfile profile;
    profile.kind = spec.kind;
    for (const auto* node : spec.WorkloadNodes()) {
        NodeNeed need;
        need.node = node;
        need.count = std::max(node->count, 0);
        need.cpus = node->resources.cpus.value_or(0.0);
        need.mem_mb = node->resources.mem_mb.value_or(0);
        need.disk_mb = node->resources.disk_mb.value_or(0);
        need.gpu = node->resources.gpu;
        AddGpuNeed(profile.gpus, need);
        profile.nodes.push_back(need);
    }
    profile.totals = RequestedResources(spec);
    for (const auto& node : spec.nodes) {
        if (TypeChainHas(node, "tosca.nodes.indigo.ElasticCluster")) {
            profile.elastic_cluster = true;
        }
        if (TypeChainHas(node, "tosca.nodes.BlockStorage")) {
            const auto type = node.properties.find("type");
            if (type != node.properties.end() && type->is_string() && !type->get<std::string>().empty()) {
                profile.volume_types.push_back(type->get<std::string>());
            }
        }
        const auto secrets = node.properties.find("secrets");
        if (TypeChainHas(node, "tosca.nodes.indigo.Container.Application.Docker.Marathon") &&
            secrets != node.properties.end() && !secrets->is_null() && !secrets->empty()) {
            profile.needs_secrets = true;
        }
    }
    return profile;
}

std::string_view KindWords(tosca::DeploymentKind kind) {
    switch (kind) {
        case tosca::DeploymentKind::kVirtualMachines:
            return "virtual machines";
        case tosca::DeploymentKind::kMarathon:
            return "Marathon apps";
        case tosca::DeploymentKind::kChronos:
            return "Chronos jobs";
        case tosca::DeploymentKind::kKubernetes:
            return "Kubernetes workloads";
        case tosca::DeploymentKind::kSlurm:
            return "Slurm batch jobs";
    }
    return "workloads";
}

std::string DescribeGpuNeed(const GpuNeed& need) {
    std::string text = std::to_string(need.total) + (need.total == 1 ? " GPU" : " GPUs");
    if (!need.model.empty()) {
        text += " of model " + need.model;
    }
    if (!need.vendor.empty()) {
        text += " (" + need.vendor + ")";
    }
    if (need.memory_mb > 0) {
        text += " with " + std::to_string(need.memory_mb) + " MB of memory";
    }
    return text;
}

}  // namespace orch::placement
