#include "orchestrator/workflow/elastic_template.hpp"

#include <algorithm>

namespace orch::workflow {
namespace {

std::optional<int> IntAt(const Json& object, const char* capability, const char* key) {
    if (!object.is_object() || !object.contains(capability)) {
        return std::nullopt;
    }
    const Json& cap = object.at(capability);
    if (!cap.is_object() || !cap.contains(key) || !cap.at(key).is_number_integer()) {
        return std::nullopt;
    }
    return cap.at(key).get<int>();
}

const tosca::NodeSpec* WorkerOf(const tosca::DeploymentSpec& spec, const tosca::NodeSpec& cluster) {
    for (const auto& req : cluster.requirements) {
        if (req.name == "wn" && !req.node.empty()) {
            return spec.FindNode(req.node);
        }
    }
    return nullptr;
}

}  // namespace

std::optional<ElasticTarget> FindElasticTarget(const tosca::DeploymentSpec& spec) {
    const auto clusters = spec.NodesOfType(kElasticClusterType);
    if (clusters.empty()) {
        return std::nullopt;
    }
    const tosca::NodeSpec* wn = WorkerOf(spec, *clusters.front());
    if (wn == nullptr) {
        return std::nullopt;
    }
    // The VMs are the worker's host; a worker that is itself the Compute scales itself.
    const tosca::NodeSpec* scaled = wn->host_node.empty() ? wn : spec.FindNode(wn->host_node);
    if (scaled == nullptr) {
        return std::nullopt;
    }
    const auto max = IntAt(wn->capabilities, "wn", "max_instances");
    const auto scalable_max = scaled->max_instances;
    ElasticTarget t;
    t.worker_node = scaled->name;
    t.count = scaled->count;
    t.min = std::max(0, IntAt(wn->capabilities, "wn", "min_instances").value_or(scaled->min_instances.value_or(0)));
    if (!max && !scalable_max) {
        return std::nullopt;
    }
    t.max = std::max(t.min, max.value_or(scalable_max.value_or(0)));
    return t;
}

}  // namespace orch::workflow
