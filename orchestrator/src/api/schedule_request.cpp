#include "orchestrator/api/schedule_request.hpp"

#include "orchestrator/schedule/file_expression.hpp"

#include <limits>

namespace orch::api {
namespace {

constexpr std::int64_t kMaxLeaseMins = 10LL * 365 * 24 * 60;

}  // namespace

Result<ScheduleRequest> ParseScheduleRequest(const server::Request& request) {
    ScheduleRequest out;
    ORCH_ASSIGN_OR_RETURN(out.deployment, ParseDeploymentRequest(request));
    const Json& body = out.deployment.raw;
    ORCH_ASSIGN_OR_RETURN(const auto files, ReadString(body, "fileExpression"));
    if (!files) {
        return Error::InvalidArgument("The expression to be used to monitor new files available");
    }
    ORCH_RETURN_IF_ERROR(schedule::CompileFileExpression(*files));
    out.file_expression = *files;
    ORCH_ASSIGN_OR_RETURN(const auto replication, ReadString(body, "replicationExpression"));
    if (!replication) {
        return Error::InvalidArgument("The expression to be used to replicate the files");
    }
    out.replication_expression = *replication;
    ORCH_ASSIGN_OR_RETURN(const auto replicas, ReadLenientInt(body, "numberOfReplicas"));
    if (!replicas) {
        return Error::InvalidArgument("The number of file replicas required");
    }
    if (*replicas < 1 || *replicas > std::numeric_limits<int>::max()) {
        return Error::InvalidArgument("numberOfReplicas must be at least 1");
    }
    out.number_of_replicas = static_cast<int>(*replicas);
    ORCH_ASSIGN_OR_RETURN(const auto lease, ReadLenientInt(body, "deploymentExpiresAfterMins"));
    if (lease) {
        // The group's maximum is checked by the handler; this bound only keeps the sum in range.
        if (*lease < 1 || *lease > kMaxLeaseMins) {
            return Error::InvalidArgument("deploymentExpiresAfterMins must be between 1 and 5256000 (10 years)");
        }
        out.deployment_expires_after_mins = static_cast<int>(*lease);
    }
    return out;
}

}  // namespace orch::api
