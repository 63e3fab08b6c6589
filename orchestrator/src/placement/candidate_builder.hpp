#pragma once

#include "evaluation.hpp"

namespace orch::placement {

/// The deployable choice for an accepted service: the connector target (credentials left empty),
/// the flavor/image per VM node, cloudProviderName and cloudProviderEndpoint.
Candidate BuildCandidate(const Evaluation& eval, const Requester& requester);

/// cloudProviderEndpoint: {cpEndpoint, cpComputeServiceId, deploymentType, region?}.
Json EndpointJson(const connectors::SiteTarget& target);

connectors::TargetKind TargetKindFor(cmdb::ServiceKind kind);

}  // namespace orch::placement
