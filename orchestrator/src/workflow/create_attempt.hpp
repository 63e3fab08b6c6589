#pragma once

#include "steps_common.hpp"

namespace orch::workflow::steps {

/// The deploy step on the current candidate: the attempt is written ahead, then created on its
/// site (after its SLA claims are reserved, its provider's timeout checked and its IAM clients
/// provisioned); a failure moves on to the next candidate, a user error fails the deployment.
StepResult CreateOn(
    StepServices& s,
    const WorkflowState& st,
    const tosca::DeploymentSpec& spec,
    const Job& job,
    const CancelToken& cancel
);

}  // namespace orch::workflow::steps
