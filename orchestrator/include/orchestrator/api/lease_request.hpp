#pragma once

#include "orchestrator/api/api_context.hpp"

#include <optional>
#include <string>

namespace orch::api {

/// The lease end of a create or renewal by `principal` in `group` (docs/lifecycle.md "Leases"):
/// `requested` checked against the group's policy (400 naming expiresAt, or the maximum), or the
/// group's default when none was asked for and `use_default`. `action`, when not null, gets the
/// group's expiry action.
Result<std::optional<domain::TimePoint>> ResolveLease(
    ApiContext& ctx,
    const server::Request& request,
    const auth::Principal& principal,
    const std::string& group,
    const std::optional<domain::TimePoint>& requested,
    bool use_default,
    domain::LeaseAction* action
);

}  // namespace orch::api
