#pragma once

// The queue of deployments waiting for admission (docs/admission.md, "A queue, not a failure"):
// how a waiting request is recorded on its deploy job, and its place in the fair-share order.
#include "common/json.hpp"
#include "orchestrator/workflow/fair_share.hpp"

#include <optional>
#include <string>

namespace orch::workflow {

/// The payload member of a waiting deploy job that says what it waits for. The stores list the
/// deploy jobs carrying it (WorkflowStore::WaitingRequests); the next admitted step drops it.
inline constexpr const char* kWaitingMember = "waiting";

/// {"group", "priority", "since" (ms since the epoch), "gpus", "cpus", "ram_mb"}.
Json WaitingToJson(const WaitingRequest& request);
/// The record back, for `deployment_id`; nullopt when it is not one (no such member, bad types).
std::optional<WaitingRequest> WaitingFromJson(const std::string& deployment_id, const Json& record);

/// The most waiting requests one admission orders (bounded work per place step).
inline constexpr int kMaxWaitingListed = 10'000;

}  // namespace orch::workflow
