#pragma once

// GPU classes quotas are keyed by (docs/admission.md, "GPU classes"): a vendor/model with its
// aliases, or a GPU memory class, as an SLA target or the configured quotas declare them.
#include "tosca/deployment_spec.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::placement {

/// GPUs of one class: a model class covers the GPUs whose model matches `name` or one of the
/// `aliases` as a run of words ("V100" covers "Tesla V100-PCIE-32GB"); a memory class (with
/// `min_memory_mb`) covers the GPUs with at least that much memory. `vendor`, when set, must
/// also match.
struct GpuClass {
    std::string name;  ///< what quotas, counters and statusReason call it ("V100", "≥40GB")
    std::vector<std::string> aliases;
    std::string vendor;
    std::optional<std::uint64_t> min_memory_mb;
};

/// A limit on the GPUs of one class.
struct GpuClassLimit {
    GpuClass gpu_class;
    double limit = 0;
};

/// Whether the class covers what one node asks for. A request naming neither a model nor a
/// memory size is in no class: it claims the all-GPU counters only.
bool GpuClassCovers(const GpuClass& gpu_class, const tosca::GpuRequest& request);

/// The GPUs a deployment asks of the class: Σ count × GPUs per instance over its workload nodes
/// the class covers.
int GpusOfClass(const tosca::DeploymentSpec& spec, const GpuClass& gpu_class);

/// `spec` with the GPUs of the nodes in `chosen` (Candidate::chosen_gpus: by node, what the chosen
/// flavor has) in place of what they asked for, so GpusOfClass counts the class they get.
tosca::DeploymentSpec WithChosenGpus(
    const tosca::DeploymentSpec& spec, const std::map<std::string, tosca::GpuRequest>& chosen
);

}  // namespace orch::placement
