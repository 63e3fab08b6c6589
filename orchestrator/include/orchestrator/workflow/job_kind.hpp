#pragma once

#include <string_view>

namespace orch::workflow {

/// Which step a job runs. The names are the jobs table's `kind` values (also written by the
/// deployment store's SQL: 'deploy', 'delete', 'update', 'action').
enum class JobKind {
    kDeploy,      ///< place (first time) and create on the current candidate
    kPoll,        ///< wait for the create to finish
    kDelete,      ///< delete the current attempt
    kDeletePoll,  ///< wait for the delete to finish
    kCleanup,     ///< remove a failed attempt's leftovers (side job)
    kUpdate,
    kUpdatePoll,
    kAction,  ///< start/stop a node
    kActionPoll,
    kCallback,  ///< tell the deployment's callback URL (side job)
    kHealth,    ///< watch a running deployment's site and workload; self-heal (side job)
    kUnknown,   ///< a row whose kind this build does not know (the engine drops it)
};

/// "deploy", "poll", "delete", "delete_poll", "cleanup", "update", "update_poll", "action",
/// "action_poll", "callback", "health"; "unknown" for kUnknown.
std::string_view JobKindName(JobKind kind);

/// The kind named `name`; kUnknown for any other text.
JobKind ParseJobKind(std::string_view name);

}  // namespace orch::workflow
