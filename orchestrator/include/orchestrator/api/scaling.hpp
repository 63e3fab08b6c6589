#pragma once

#include "common/result.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "tosca/deployment_spec.hpp"

#include <string>
#include <vector>

namespace orch::api {

/// What an update does to the node instances.
struct ScalingPlan {
    std::vector<domain::Resource> added;  ///< new instances, state CREATING
    std::vector<std::string> removed;     ///< resource ids going away
};

/// Compares the new template with the current instances: removal_list uuids go first, then the
/// newest surplus instances beyond `count`; missing instances are added; nodes that left the
/// template are removed. An unknown uuid in a removal_list is 400 (the original failed later,
/// in the workflow, with "Unknown resource with id ..."). Added instances are created at `now`.
Result<ScalingPlan> PlanScaling(
    const tosca::DeploymentSpec& spec,
    const std::vector<domain::Resource>& existing,
    const std::string& deployment_id,
    domain::TimePoint now
);

}  // namespace orch::api
