#pragma once

// The configured cohorts (workflow.admission_cohorts; docs/admission.md, "Admission cycle"):
// groups that lend each other unused GPU quota within limits, after Kueue's cohorts.
#include "orchestrator/workflow/admission_cycle.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace orch::workflow {

struct AdmissionCohorts {
    using Quotas = std::map<std::string, CohortQuota, std::less<>>;
    /// Cohort name → its groups and their quotas; a group belongs to at most one cohort.
    std::map<std::string, Quotas, std::less<>> cohorts;

    /// The quotas of the cohort `group` belongs to; null when it is in none.
    const Quotas* CohortOf(std::string_view group) const;
    /// The most GPUs `group` may hold: its nominal plus the smaller of its borrowing limit and
    /// what the other groups lend; nullopt outside any cohort.
    std::optional<double> CeilingOf(std::string_view group) const;
};

}  // namespace orch::workflow
