#pragma once

#include "steps_common.hpp"

namespace orch::workflow::steps {

/// The deploy step's first commit: ranks the sites (the placer), records the candidates (each
/// provider's tries with the claims its SLA makes) and admits the deployment, or queues it
/// while a quota, a site's capacity or a request ahead of it in the fair-share order holds it.
StepResult Place(StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec, const Job& job);

}  // namespace orch::workflow::steps
