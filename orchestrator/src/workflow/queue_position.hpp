#pragma once

// Where a request stands in its issuer's admission queue (docs/admission.md, "Fair share").
#include "orchestrator/workflow/admission_observer.hpp"
#include "orchestrator/workflow/fair_share.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

#include <cstddef>
#include <string>

namespace orch::workflow {

struct QueuePlace {
    std::size_t position = 1;  ///< 1-based, in the fair-share order of the requests it competes with
    bool first() const { return position == 1; }
};

/// `self`'s place among the waiting requests of `issuer` that compete with it (requests for GPUs
/// with requests for GPUs, the others with the others), ordered by FairShareOrder (with `weights` and `options`) over
/// what each group holds now (its group quota counters) against the sum of that and every demand.
/// `observer`, when set, is told each group's waiting requests and share (the queue metrics).
Result<QueuePlace> PlaceInQueue(
    WorkflowStore& store,
    const std::string& issuer,
    const WaitingRequest& self,
    std::chrono::system_clock::time_point now,
    const FairShareWeights& weights = {},
    const FairShareOptions& options = {},
    std::chrono::milliseconds half_life = std::chrono::hours(24 * 7),
    AdmissionObserver* observer = nullptr
);

}  // namespace orch::workflow
