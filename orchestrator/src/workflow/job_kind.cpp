#include "orchestrator/workflow/job_kind.hpp"

namespace orch::workflow {

std::string_view JobKindName(JobKind kind) {
    switch (kind) {
        case JobKind::kDeploy:
            return "deploy";
        case JobKind::kPoll:
            return "poll";
        case JobKind::kDelete:
            return "delete";
        case JobKind::kDeletePoll:
            return "delete_poll";
        case JobKind::kCleanup:
            return "cleanup";
        case JobKind::kUpdate:
            return "update";
        case JobKind::kUpdatePoll:
            return "update_poll";
        case JobKind::kAction:
            return "action";
        case JobKind::kActionPoll:
            return "action_poll";
        case JobKind::kCallback:
            return "callback";
        case JobKind::kHealth:
            return "health";
        case JobKind::kUnknown:
            break;
    }
    return "unknown";
}

JobKind ParseJobKind(std::string_view name) {
    for (int i = 0; i < static_cast<int>(JobKind::kUnknown); ++i) {
        const auto kind = static_cast<JobKind>(i);
        if (JobKindName(kind) == name) {
            return kind;
        }
    }
    return JobKind::kUnknown;
}

}  // namespace orch::workflow
