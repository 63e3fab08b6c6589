#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "connectors/connector.hpp"
#include "orchestrator/placement/placer.hpp"

namespace orch::workflow {

/// Candidates are stored with the deployment (and per attempt) so a restarted worker continues
/// with exactly the ranking it had. Credentials are never serialised.
Json CandidateToJson(const placement::Candidate& c);
Result<placement::Candidate> CandidateFromJson(const Json& j);

Json HandleToJson(const connectors::Handle& h);
Result<connectors::Handle> HandleFromJson(const Json& j);

std::optional<connectors::TargetKind> ParseTargetKind(std::string_view name);

}  // namespace orch::workflow
