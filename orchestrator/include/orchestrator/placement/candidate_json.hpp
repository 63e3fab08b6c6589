#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "connectors/connector.hpp"
#include "orchestrator/placement/placer.hpp"

#include <map>
#include <string>

namespace orch::placement {

/// The one stored form of a candidate: with the deployment and per attempt (so a restarted worker
/// continues with exactly the ranking it had) and in the placement record. Credentials are never
/// serialised: the workflow fills them per call.
Json CandidateToJson(const Candidate& candidate);
Result<Candidate> CandidateFromJson(const Json& json);

Json TargetToJson(const connectors::SiteTarget& target);
Result<connectors::SiteTarget> TargetFromJson(const Json& json);

Json PlacementsToJson(const std::map<std::string, connectors::NodePlacement>& placements);

}  // namespace orch::placement
