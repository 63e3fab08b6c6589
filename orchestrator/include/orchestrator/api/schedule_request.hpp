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
    /// `deploymentExpiresAfterMins` (our addition): the events' deployments' lease, 1 min or more.
    std::optional<int> deployment_expires_after_mins;
};

/// The DeploymentRequest errors first, then the contract's 400 for each missing schedule field.
/// Our additions: a fileExpression that does not compile (ECMAScript), numberOfReplicas < 1 and
/// deploymentExpiresAfterMins < 1 (or not an integer) are 400.
Result<ScheduleRequest> ParseScheduleRequest(const server::Request& request);

}  // namespace orch::api
