#pragma once

// Where a request stands in its issuer's admission queue (docs/admission.md, "Fair share").
#include "orchestrator/workflow/admission_cohorts.hpp"
#include "orchestrator/workflow/admission_cycle.hpp"
#include "orchestrator/workflow/admission_observer.hpp"
#include "orchestrator/workflow/fair_share.hpp"
#include "orchestrator/workflow/workflow_store.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace orch::workflow {

struct QueuePlace {
    std::size_t position = 1;  ///< 1-based, in the fair-share order of the requests it competes with
    /// Whether it may start now (AdmitNow): the fair-share first, or, for a GPU request, the
    /// admission cycle's choice (cohort quotas, the head's reservation, backfill).
    bool admit = true;
    /// The index into CycleSites::sites the cycle chose for it (nullopt: no sites were given).
    std::optional<std::size_t> site;
};

/// What the admission cycle needs beyond the queue: the cohorts, and the GPUs of the sites
/// placement saw for this request (empty: not known, see AdmitNow).
struct CycleSites {
    const AdmissionCohorts* cohorts = nullptr;
    std::vector<SiteGpus> sites;
};

/// `self`'s place among the waiting requests of `issuer` that compete with it (requests for GPUs
/// with requests for GPUs, the others with the others), ordered by FairShareOrder (with `weights` and `options`) over
/// what each group holds now (its group quota counters) against the sum of that and every demand.
/// `observer`, when set, is told each group's waiting requests and share (the queue metrics).
/// Whether it may start now is AdmitNow's answer over that order.
Result<QueuePlace> PlaceInQueue(
    WorkflowStore& store,
    const std::string& issuer,
    const WaitingRequest& self,
    std::chrono::system_clock::time_point now,
    const FairShareWeights& weights = {},
    const FairShareOptions& options = {},
    std::chrono::milliseconds half_life = std::chrono::hours(24 * 7),
    AdmissionObserver* observer = nullptr,
    const CycleSites& cycle = {}
);

/// Whether `waiting[0]` starts now, given the fair-share `order` of `waiting`, the GPUs each
/// group holds and `cycle`. A request without GPUs: when it is first. A GPU request: when the
/// admission cycle (AdmissionCycle, with the cohort of its group) admits it; with the sites'
/// GPUs known, wherever it lets it start (backfill included), else over one unbounded site, so
/// only when it is the first the cycle admits (the strict order, bent by the cohort's quotas).
QueuePlace AdmitNow(
    const std::vector<WaitingRequest>& waiting,
    std::vector<std::size_t> order,
    const std::map<std::string, double, std::less<>>& held_gpus,
    const CycleSites& cycle,
    std::chrono::system_clock::time_point now
);

}  // namespace orch::workflow
