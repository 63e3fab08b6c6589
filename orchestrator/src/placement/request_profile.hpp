#pragma once

#include "gpu_model.hpp"
#include "orchestrator/placement/flavor_index.hpp"
#include "orchestrator/placement/usage.hpp"
#include "tosca/deployment_spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace orch::placement {

/// What one workload node needs, per instance.
struct NodeNeed {
    const tosca::NodeSpec* node = nullptr;
    int count = 1;
    double cpus = 0;
    std::uint64_t mem_mb = 0;
    std::uint64_t disk_mb = 0;
    tosca::GpuRequest gpu;

    FlavorNeed ForFlavor() const { return {gpu, cpus, mem_mb, disk_mb}; }
};

/// GPUs needed at one site for one (vendor, model) wish, summed over nodes and instances.
struct GpuNeed {
    std::string vendor;
    std::string model;
    std::uint64_t memory_mb = 0;
    int total = 0;
};

/// The request reduced to what filters and ranking look at, computed once per placement.
struct RequestProfile {
    tosca::DeploymentKind kind = tosca::DeploymentKind::kVirtualMachines;
    std::vector<NodeNeed> nodes;
    std::vector<GpuNeed> gpus;  ///< grouped by (vendor, model, memory)
    ResourceTotals totals;
    bool elastic_cluster = false;
    bool needs_secrets = false;
    std::vector<std::string> volume_types;  ///< BlockStorage `type` properties asked for

    int TotalGpus() const { return totals.gpus; }
};

RequestProfile BuildProfile(const tosca::DeploymentSpec& spec);

/// "virtual machines", "Marathon apps", ... for explanations.
std::string_view KindWords(tosca::DeploymentKind kind);

/// "2 GPUs of model V100 (nvidia)" / "1 GPU".
std::string DescribeGpuNeed(const GpuNeed& need);

}  // namespace orch::placement
