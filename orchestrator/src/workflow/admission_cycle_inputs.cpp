#include "admission_cycle_inputs.hpp"

#include <algorithm>

namespace orch::workflow {

// A group in a cohort holds at most its nominal quota plus what it may borrow: its group GPU
// counter says so atomically at commit (lowering a configured group limit, or adding the claim
// where none is configured), and the cycle reads what the cohort's groups hold from the same
// counters.
std::vector<QuotaClaim> WithCohortCeiling(
    std::vector<QuotaClaim> claims,
    const AdmissionCohorts& cohorts,
    const placement::PlacementDecision& decision,
    const placement::Requester& requester,
    const placement::ResourceTotals& request
) {
    const auto ceiling = cohorts.CeilingOf(decision.quota_group);
    if (!ceiling || request.gpus <= 0) {
        return claims;
    }
    const CounterKey key{QuotaScope::kGroup, requester.issuer, decision.quota_group, "", "", QuotaResource::kGpus, ""};
    const auto it = std::find_if(claims.begin(), claims.end(), [&](const QuotaClaim& c) { return c.key == key; });
    if (it != claims.end()) {
        it->limit = std::min(it->limit, *ceiling);
        return claims;
    }
    claims.push_back(QuotaClaim{key, static_cast<double>(request.gpus), *ceiling});
    std::sort(claims.begin(), claims.end(), [](const QuotaClaim& a, const QuotaClaim& b) { return a.key < b.key; });
    return claims;
}

// The cycle's view of the GPU sites: only when placement knows the GPUs of every site it offers
// this request (else a request that fits on an unmeasured site would wait for measured ones).
std::vector<SiteGpus> CycleSitesOf(const placement::PlacementDecision& decision) {
    std::vector<SiteGpus> sites;
    for (const auto& candidate : decision.ranked) {
        const auto known = std::any_of(decision.gpu_sites.begin(), decision.gpu_sites.end(), [&](const auto& g) {
            return g.service_id == candidate.target.service_id;
        });
        if (!known) {
            return {};
        }
    }
    for (const auto& g : decision.gpu_sites) {
        sites.push_back(SiteGpus{static_cast<double>(g.total), static_cast<double>(g.free)});
    }
    return sites;
}

// The site the cycle chose goes first among the ranked sites (the others keep their order), so
// a backfilled request starts where it cannot delay the head. The explanation record keeps
// placement's ranking; a chosen site placement did not offer changes nothing.
void CycleSiteFirst(placement::PlacementDecision& decision, std::optional<std::size_t> site) {
    if (!site || *site >= decision.gpu_sites.size()) {
        return;
    }
    const std::string& service = decision.gpu_sites[*site].service_id;
    std::stable_partition(decision.ranked.begin(), decision.ranked.end(), [&](const placement::Candidate& c) {
        return c.target.service_id == service;
    });
}

}  // namespace orch::workflow
