#pragma once

#include "common/json.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/auth/principal.hpp"

namespace orch::auth {

/// Which parts a JWT's own claims already provided (the rest may come from the issuer).
struct ClaimsCoverage {
    bool scopes = false;
    bool groups = false;
};

/// Fills identity, scopes (`scope` string or `scp` array), groups (the issuer's configured claim,
/// '/' stripped; plus `wlcg.groups` raw), username, client and expiry from verified claims.
ClaimsCoverage ApplyTokenClaims(const Json& claims, const IssuerConfig& issuer, Principal& principal);

/// Completes a principal from an active introspection answer: scopes when the token had none,
/// groups and username when still unknown.
void ApplyIntrospection(const Json& answer, const IssuerConfig& issuer, Principal& principal);

/// Completes groups/username/organisation from a userinfo answer (IAM `groups`, or EGI Check-in's
/// `eduperson_entitlement` when `edu_person_unique_id` is present, as the original does).
void ApplyUserinfo(const Json& answer, const IssuerConfig& issuer, Principal& principal);

/// Sets `admin` from the issuer's admin group.
void ApplyAdmin(const IssuerConfig& issuer, Principal& principal);

/// True when a text the principal carries holds a NUL: JSON's `\u0000` decodes to one, and no
/// identity, group or scope may hold it (PostgreSQL text refuses it; names compare wrongly).
bool CarriesNul(const Principal& principal);

}  // namespace orch::auth
