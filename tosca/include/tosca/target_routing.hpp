#pragma once

#include "tosca/deployment_spec.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// One row of the routing table: nodes of `base_type` (or derived from it) run on `kind`.
struct TargetRoute {
    std::string_view base_type;
    DeploymentKind kind;
};

/// The one table deciding where a deployment runs, read by the spec builder (and so by
/// tosca-check's verdict, the dry run and the workflow, which all take DeploymentSpec::kind) and
/// by DeploymentSpec::WorkloadNodes(). Adding a target type means adding a row here; nothing else
/// compares type names to route (issue 25: types missing from a second list were sent to IM).
std::span<const TargetRoute> TargetRoutes();

/// The target of a node whose type chain (most derived first) is `type_chain`: the row of its
/// most derived ancestor in the table; nullopt for nodes that run nowhere by themselves (software
/// components, runtimes, storage, networks).
std::optional<DeploymentKind> RouteOfTypeChain(const std::vector<std::string>& type_chain);

/// The deployment's kind from its nodes' type chains in template order: the first node routed to
/// a container or batch target decides (as the original, which took the first matching node);
/// without one, the template is for virtual machines.
DeploymentKind RouteDeployment(const std::vector<const std::vector<std::string>*>& type_chains);

}  // namespace orch::tosca
