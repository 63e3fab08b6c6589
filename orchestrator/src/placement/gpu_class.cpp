#include "orchestrator/placement/gpu_class.hpp"

#include "gpu_model.hpp"

#include <algorithm>

namespace orch::placement {
namespace {

// Either way round: a class "V100" covers a request for "Tesla V100-PCIE-32GB", and a class
// aliased "Tesla V100-PCIE-32GB" covers a request for just "V100" (it may land on one).
bool ModelMatches(std::string_view pattern, std::string_view model) {
    return !pattern.empty() && (GpuModelMatches(pattern, model) || GpuModelMatches(model, pattern));
}

}  // namespace

bool GpuClassCovers(const GpuClass& gpu_class, const tosca::GpuRequest& request) {
    if (request.count <= 0 || !SameWord(gpu_class.vendor, request.vendor)) {
        return false;
    }
    if (gpu_class.min_memory_mb) {
        const auto memory = request.memory_mb ? request.memory_mb : MemoryFromModelName(request.model);
        return memory && *memory >= *gpu_class.min_memory_mb;
    }
    if (request.model.empty()) {
        return false;
    }
    return ModelMatches(gpu_class.name, request.model) ||
           std::any_of(gpu_class.aliases.begin(), gpu_class.aliases.end(), [&](const std::string& alias) {
               return ModelMatches(alias, request.model);
           });
}

int GpusOfClass(const tosca::DeploymentSpec& spec, const GpuClass& gpu_class) {
    int total = 0;
    for (const auto* node : spec.WorkloadNodes()) {
        if (GpuClassCovers(gpu_class, node->resources.gpu)) {
            total += std::max(node->resources.gpu.count, 0) * std::max(node->count, 0);
        }
    }
    return total;
}

tosca::DeploymentSpec WithChosenGpus(
    const tosca::DeploymentSpec& spec, const std::map<std::string, tosca::GpuRequest>& chosen
) {
    tosca::DeploymentSpec out = spec;
    for (auto& node : out.nodes) {
        if (const auto it = chosen.find(node.name); it != chosen.end() && node.resources.gpu.count > 0) {
            node.resources.gpu = it->second;
        }
    }
    return out;
}

}  // namespace orch::placement
