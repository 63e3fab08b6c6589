#pragma once

#include "common/json.hpp"
#include "common/result.hpp"
#include "connectors/connector.hpp"
#include "orchestrator/placement/candidate_json.hpp"
#include "orchestrator/placement/placer.hpp"

namespace orch::workflow {

/// Candidates are stored with the deployment (and per attempt) in placement's one stored form
/// (placement/candidate_json.hpp), which the placement record uses too.
using placement::CandidateFromJson;
using placement::CandidateToJson;

/// A connector's handle as stored with the resource; its target in the candidate's form.
Json HandleToJson(const connectors::Handle& h);
Result<connectors::Handle> HandleFromJson(const Json& j);

}  // namespace orch::workflow
