#pragma once

#include "common/json.hpp"
#include "common/result.hpp"

#include <map>
#include <string>
#include <vector>

namespace orch::sim {

/// One Mesos agent shared by the Marathon and Chronos simulators (a real site runs both
/// frameworks on one Mesos cluster).
struct MesosAgentSpec {
    std::string hostname;
    double cpus = 0;
    double mem_mb = 0;
    double disk_mb = 0;
    int gpus = 0;
    std::map<std::string, std::string> attributes;  ///< e.g. {"gpu_model": "tesla-v100"}
};

/// One Kubernetes node. GPU nodes carry the labels NVIDIA GPU Feature Discovery would set.
struct KubeNodeSpec {
    std::string name;
    double cpu = 0;
    double memory_mb = 0;
    int gpus = 0;
    std::string gpu_product;  ///< value of the nvidia.com/gpu.product label
    std::map<std::string, std::string> labels;
    bool gpu_taint = false;  ///< taint nvidia.com/gpu=present:NoSchedule, as GPU pools often are
};

/// Simulated durations (in simulated seconds) of the state progressions.
struct SimTiming {
    double task_start = 1;      ///< Marathon task staged -> running
    double health = 1;          ///< running -> healthy when the app has health checks
    double job_run = 2;         ///< a Chronos job or a Kubernetes Job pod runs this long by default
    double kill = 1;            ///< tasks and pods take this long to terminate
    double pod_start = 1;       ///< scheduled pod -> running
    double namespace_gone = 1;  ///< an emptied Terminating namespace disappears after this
    double vm_boot = 2;         ///< IM: a VM is pending this long, then running
    double vm_configure = 3;    ///< IM: then contextualised (configured) after this
};

struct SimConfig {
    double speed = 1.0;  ///< simulated seconds per real second
    SimTiming timing;
    std::vector<MesosAgentSpec> mesos_agents;
    std::vector<KubeNodeSpec> kube_nodes;
    bool marathon_gpu_resources = true;   ///< Marathon started with --enable_features gpu_resources
    bool marathon_gpu_restricted = true;  ///< --gpu_scheduling_behavior restricted (the default)
    bool chronos_gpu_support = true;      ///< a Chronos patched for GPUs (upstream drops `gpus`)
    std::vector<std::string> tokens;      ///< accepted bearer tokens; empty = no check
    std::vector<std::string> basic;       ///< accepted "user:password" pairs for Basic auth
    std::size_t max_objects = 5000;       ///< per simulator, so a runaway client cannot exhaust memory
    Json faults = Json::array();          ///< fault rules active from the start (see FaultInjector)
    /// IM: where the TOSCA engine reads the type imports of the templates it receives
    /// (URL_PREFIX=DIR;..., the ORCHESTRATOR_TOSCA_MIRRORS format). Config key im.tosca_mirrors.
    std::string im_tosca_mirrors;

    /// Two CPU agents/nodes and one with two V100 GPUs per API.
    static SimConfig Default();
};

/// Reads a configuration from JSON (the YAML file is converted first). Unknown keys are errors
/// naming the key; absent sections keep the defaults.
Result<SimConfig> ParseSimConfig(const Json& document);
/// Converts YAML text to JSON (scalars become numbers or booleans where they look like one).
Result<Json> YamlToJson(const std::string& text, const std::string& origin);
/// Capacity sections only ("mesos_agents", "kube_nodes"), for the admin endpoint.
Status ApplyCapacity(const Json& document, SimConfig& config);
Json CapacityToJson(const SimConfig& config);

}  // namespace orch::sim
