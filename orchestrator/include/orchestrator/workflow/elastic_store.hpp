#pragma once

// The durable side of the elastic-cluster autoscaler (migration 0014): which deployments may be
// scaled, one sweep's turn on each, and the memory and events of its decisions.
#include "common/result.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/workflow/elastic_policy.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace orch::workflow {

class ElasticStore {
   public:
    virtual ~ElasticStore() = default;
    /// Up to `limit` deployments in CREATE_COMPLETE or UPDATE_COMPLETE (the states a scale may
    /// start from; not UPDATE_FAILED, so a failing scale is not retried in a loop), those swept
    /// longest ago first. Not scoped to an owner: the sweep acts for the operator.
    virtual Result<std::vector<std::string>> Candidates(int limit) = 0;
    /// Takes this sweep's turn on the deployment: its memory, or nullopt when another sweep took
    /// a turn less than `gap` before `now` (or the deployment is gone).
    virtual Result<std::optional<ElasticMemory>> ClaimTurn(
        const std::string& deployment_id, ElasticTime now, std::chrono::milliseconds gap
    ) = 0;
    /// Stores the memory and, if any, the decision's event, in one transaction.
    virtual Status Save(
        const std::string& deployment_id, const ElasticMemory& memory, const std::optional<domain::Event>& event
    ) = 0;
};

}  // namespace orch::workflow
