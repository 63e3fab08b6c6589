#pragma once

#include "common/result.hpp"
#include "orchestrator/api/deployment_request.hpp"
#include "orchestrator/server/request.hpp"

#include <string>

namespace orch::api {

/// The body of POST /schedules (contract §3.17): a DeploymentRequest plus the file and replication
/// expressions. Timeouts, retries and userGroup are validated but not kept, as in the original.
struct ScheduleRequest {
    DeploymentRequest deployment;
    std::string file_expression;
    std::string replication_expression;
    int number_of_replicas = 0;
};

/// The DeploymentRequest errors first, then the contract's 400 for each missing schedule field.
/// Our additions: a fileExpression that does not compile (ECMAScript) and numberOfReplicas < 1 are 400.
Result<ScheduleRequest> ParseScheduleRequest(const server::Request& request);

}  // namespace orch::api
