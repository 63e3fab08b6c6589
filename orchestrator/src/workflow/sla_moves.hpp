#pragma once

// The SLA claims that follow a deployment from one candidate site to the next (docs/admission.md).
#include "orchestrator/workflow/admission.hpp"
#include "steps_common.hpp"

#include <vector>

namespace orch::workflow::steps {

/// The candidate's JSON with the claims its service's SLA makes (kServiceClaimsMember), which
/// the move to it reserves (ReserveOnCandidate); none when its SLA limits nothing asked.
Json WithServiceClaims(Json candidate, std::vector<QuotaClaim> claims);

/// The first commit of the deploy step on a candidate the workflow moved to (NextSite released
/// the failed site's SLA claims): it reserves what this candidate's SLA limits, before any
/// Create there. Should it not fit, the job waits admission_retry with the queued reason and
/// tries again (the deadline still applies); nothing is held on any service meanwhile.
StepResult ReserveOnCandidate(const StepServices& s, const tosca::DeploymentSpec& spec, const Json& stored);

}  // namespace orch::workflow::steps
