#pragma once

// What the place step gives the admission cycle and takes from it (docs/admission.md,
// "Admission cycle"): the cohort's ceiling on the group's GPU counter, the sites' GPUs from
// placement, and the site the cycle chose.
#include "orchestrator/placement/placer.hpp"
#include "orchestrator/workflow/admission.hpp"
#include "orchestrator/workflow/admission_cohorts.hpp"
#include "orchestrator/workflow/admission_cycle.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace orch::workflow {

/// `claims` with the group's GPU counter bounded by its cohort ceiling (CeilingOf): the
/// configured group limit lowered to it, or a claim added where none is configured.
std::vector<QuotaClaim> WithCohortCeiling(
    std::vector<QuotaClaim> claims,
    const AdmissionCohorts& cohorts,
    const placement::PlacementDecision& decision,
    const placement::Requester& requester,
    const placement::ResourceTotals& request
);

/// The GPU sites of `decision` (gpu_sites), or none unless every ranked site is among them.
std::vector<SiteGpus> CycleSitesOf(const placement::PlacementDecision& decision);

/// Moves the ranked site the cycle chose (an index into gpu_sites) first.
void CycleSiteFirst(placement::PlacementDecision& decision, std::optional<std::size_t> site);

}  // namespace orch::workflow
