#pragma once

#include "common/result.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/auth/owner_filter.hpp"
#include "orchestrator/auth/principal.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace orch::auth {

/// The start of every scope 403 message (contract §1.4); the error also carries the scopes as
/// typed details (AuthChallenge::kInsufficientScope) for the WWW-Authenticate header.
inline constexpr std::string_view kInsufficientScope = "Insufficient scope for this resource";

/// What an endpoint does, for the scope rules of contract §5.2.
enum class Access {
    kRead,    ///< GET: every_request scopes
    kWrite,   ///< POST/PUT/PATCH/DELETE on deployments, POST schedules: + one of write_any_of
    kAction,  ///< POST .../actions: + one of action_any_of
};

/// 403 kPermissionDenied "Insufficient scope for this resource, scope=\"<missing>\"" (for a
/// one-of rule, every alternative is listed). The local user passes.
Status RequireScopes(const Principal& principal, Access access, const ScopePolicy& policy);

/// Contract §5.4 on `userGroup` (create: always, even when absent; list: when given):
/// `groups` and `wlcg.groups` both absent or empty → "User's token does not contain a group claim
/// or it is empty"; group G missing from `groups`, or "/G" from `wlcg.groups`, when that claim is
/// present (even empty) → "The group G is not in the user's authorized groups" (G prints as "null"
/// when absent, as the original does). Groups that came from introspection/userinfo count as the
/// `groups` claim. The local user passes.
Status CheckUserGroup(const Principal& principal, const std::optional<std::string>& user_group);

/// Owner of a deployment or schedule; nullopt for rows created while auth was disabled.
struct Owner {
    std::string issuer;
    std::string subject;
};

/// Same-issuer visibility (§5.3): unowned rows and rows of the requester's issuer are visible. The
/// caller answers 404 with its own "The deployment <id> doesn't exist" text otherwise.
bool IsVisibleTo(const Principal& principal, const std::optional<Owner>& owner);

/// Owner-only operations (§5.3: PUT, PATCH, DELETE, log, extrainfo, actions): the owner passes;
/// with `admins_operate_on_any` ([post-4.0.1]) an admin of the same issuer passes too; otherwise
/// 403 "Only the owner of the deployment can perform this operation". Check IsVisibleTo first.
Status CheckOwnership(const Principal& principal, const std::optional<Owner>& owner, bool admins_operate_on_any);

enum class ListKind { kDeployments, kSchedules };

/// Which rows a list request may return: `owner` (always within the caller's issuer, see
/// OwnerFilter) and, for deployments, the userGroup asked for (membership checked).
struct ListFilter {
    OwnerFilter owner;
    std::optional<std::string> user_group;
};

/// GET /deployments and /schedules (§3.4, §3.17): `created_by` is the raw query value (empty when
/// absent), `user_group` the userGroup parameter (deployments only). Errors: 400 "Value X for param
/// createdBy is illegal", 403 "Only admin can retrieve deployments for X", and the userGroup 403s.
/// With auth disabled everything is listed; createdBy=sub@iss and userGroup act as plain filters.
/// createdBy naming another issuer's owner lists nothing, for admins too.
Result<ListFilter> ResolveListFilter(
    const Principal& principal, std::string_view created_by, const std::optional<std::string>& user_group, ListKind kind
);

}  // namespace orch::auth
