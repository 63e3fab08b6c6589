// The SLA claims that follow a deployment from one candidate site to the next.
#include "sla_moves.hpp"

#include <algorithm>

namespace orch::workflow::steps {

Json WithServiceClaims(Json candidate, std::vector<QuotaClaim> claims) {
    std::erase_if(claims, [](const QuotaClaim& claim) { return !OnService(claim.key); });
    if (!claims.empty()) {
        candidate[kServiceClaimsMember] = ClaimsToJson(claims);
    }
    return candidate;
}

StepResult ReserveOnCandidate(const StepServices& s, const tosca::DeploymentSpec& spec, const Json& stored) {
    Admission admit;
    admit.services_only = true;
    admit.claims = ClaimsFromJson(stored.value(kServiceClaimsMember, Json::array()));
    const std::string group = admit.claims.empty() ? std::string() : admit.claims.front().key.group;
    admit.queued_reason = "queued: waiting for the SLA quota of group " +
                          (group.empty() ? std::string("(none)") : group) + " on " +
                          stored.value("provider_name", std::string("the next site")) + ", for " +
                          WaitingFor(placement::RequestedResources(spec), admit.claims, spec);
    admit.retry_delay = s.options.admission_retry;
    Transition t;
    t.admit = std::move(admit);
    t.next = NextJob{JobKind::kDeploy, Json::object(), {}, true};
    return StepResult::Commit(std::move(t));
}

}  // namespace orch::workflow::steps
