#include "orchestrator/workflow/admission_cohorts.hpp"

#include <algorithm>

namespace orch::workflow {

const AdmissionCohorts::Quotas* AdmissionCohorts::CohortOf(std::string_view group) const {
    for (const auto& [name, quotas] : cohorts) {
        if (quotas.find(group) != quotas.end()) {
            return &quotas;
        }
    }
    return nullptr;
}

std::optional<double> AdmissionCohorts::CeilingOf(std::string_view group) const {
    const Quotas* quotas = CohortOf(group);
    if (quotas == nullptr) {
        return std::nullopt;
    }
    // Nobody can borrow more than the others lend, so the ceiling is finite even when the
    // borrowing limit is not.
    double lent = 0;
    for (const auto& [other, q] : *quotas) {
        if (other != group) {
            lent += std::clamp(q.lending_limit, 0.0, q.nominal);
        }
    }
    const CohortQuota& own = quotas->find(group)->second;
    return own.nominal + std::min(own.borrowing_limit, lent);
}

}  // namespace orch::workflow
