// The API side of leases (docs/lifecycle.md "Leases"): the lease end of a create, a PUT or a
// PATCH, checked against the group's policy. The sweep that acts on it is workflow/lease_sweep.
#include "orchestrator/api/lease_request.hpp"

namespace orch::api {

Result<std::optional<domain::TimePoint>> ResolveLease(
    ApiContext& ctx,
    const server::Request& request,
    const auth::Principal& principal,
    const std::string& group,
    const std::optional<domain::TimePoint>& requested,
    bool use_default,
    domain::LeaseAction* action
) {
    workflow::LeasePolicy policy;
    if (ctx.leases != nullptr) {
        // The caller's own token, for SLAs read on the user's behalf (SLAM), as placement does.
        constexpr std::string_view kBearer = "Bearer ";
        std::string token;
        if (const std::string header = request.Header("Authorization"); header.rfind(kBearer, 0) == 0) {
            token = header.substr(kBearer.size());
        }
        ORCH_ASSIGN_OR_RETURN(policy, ctx.leases->ForGroup(group, principal.issuer, token));
    }
    if (action != nullptr) {
        *action = policy.action;
    }
    return workflow::ResolveExpiry(requested, policy, ctx.clock.now(), use_default);
}

}  // namespace orch::api
