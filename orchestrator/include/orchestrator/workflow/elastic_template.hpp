#pragma once

// Which deployments are elastic clusters, and which node's count is their worker count.
#include "tosca/deployment_spec.hpp"

#include <optional>
#include <string>

namespace orch::workflow {

/// The INDIGO elastic-cluster shape: a tosca.nodes.indigo.ElasticCluster node whose `wn`
/// requirement names the worker node (a tosca.nodes.indigo.LRMS.WorkerNode.*), whose `wn`
/// capability carries min_instances/max_instances, hosted on the Compute node whose
/// scalable.count is the number of worker VMs.
struct ElasticTarget {
    std::string worker_node;  ///< the node whose scalable.count is scaled
    int count = 0;            ///< its count in the stored template
    int min = 0;
    int max = 0;
};

inline constexpr std::string_view kElasticClusterType = "tosca.nodes.indigo.ElasticCluster";

/// The target of an elastic cluster's scaling; nullopt for a template that is not one (or
/// declares no usable maximum, since an unbounded cluster is never scaled automatically).
std::optional<ElasticTarget> FindElasticTarget(const tosca::DeploymentSpec& spec);

}  // namespace orch::workflow
