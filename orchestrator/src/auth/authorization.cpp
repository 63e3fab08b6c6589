#include "orchestrator/auth/authorization.hpp"

#include <algorithm>

namespace orch::auth {
namespace {

Error ScopeError(const std::vector<std::string>& scopes) {
    std::string list;
    for (const auto& scope : scopes) {
        list += (list.empty() ? "" : " ") + scope;
    }
    // The message is the contract's text; the challenge header is built from the scopes themselves.
    return Error::PermissionDenied(std::string(kInsufficientScope) + ", scope=\"" + list + "\"")
        .WithChallenge(AuthChallenge::kInsufficientScope, scopes);
}

bool Contains(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// "one or more non-@, @, one or more non-@" (the original's regex).
std::optional<Owner> ParseOwnerText(std::string_view text) {
    const auto at = text.find('@');
    if (at == std::string_view::npos || at == 0 || at + 1 == text.size() ||
        text.find('@', at + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    return Owner{std::string(text.substr(at + 1)), std::string(text.substr(0, at))};
}

Error IllegalCreatedBy(std::string_view created_by) {
    return Error::InvalidArgument("Value " + std::string(created_by) + " for param createdBy is illegal");
}

Result<ListFilter> LocalListFilter(
    const Principal& principal, std::string_view created_by, const std::optional<std::string>& user_group
) {
    ListFilter filter{OwnerFilter::VisibleTo(principal), user_group};
    if (created_by.empty() || created_by == "me") {
        return filter;
    }
    auto owner = ParseOwnerText(created_by);
    if (!owner) {
        return IllegalCreatedBy(created_by);
    }
    filter.owner.OwnedBy(owner->issuer, owner->subject);
    return filter;
}

}  // namespace

Status RequireScopes(const Principal& principal, Access access, const ScopePolicy& policy) {
    if (principal.local) {
        return Ok();
    }
    std::vector<std::string> missing;
    for (const auto& scope : policy.every_request) {
        if (!principal.HasScope(scope)) {
            missing.push_back(scope);
        }
    }
    if (!missing.empty()) {
        return ScopeError(missing);
    }
    const std::vector<std::string>* any_of = access == Access::kWrite    ? &policy.write_any_of
                                             : access == Access::kAction ? &policy.action_any_of
                                                                         : nullptr;
    if (any_of == nullptr || any_of->empty()) {
        return Ok();
    }
    const bool has_one =
        std::any_of(any_of->begin(), any_of->end(), [&](const std::string& s) { return principal.HasScope(s); });
    return has_one ? Ok() : Status(ScopeError(*any_of));
}

Status CheckUserGroup(const Principal& principal, const std::optional<std::string>& user_group) {
    if (principal.local) {
        return Ok();
    }
    const auto& groups = principal.groups;
    const auto& wlcg = principal.wlcg_groups;
    if ((!groups || groups->empty()) && (!wlcg || wlcg->empty())) {
        return Error::PermissionDenied("User's token does not contain a group claim or it is empty");
    }
    // Each claim that is present must contain the group, an empty one included: v4.0.1 answers
    // `groups: []` + `wlcg.groups: ["/G"]` with 403.
    const std::string group = user_group.value_or("null");
    const bool in_groups = !groups || (user_group && Contains(*groups, group));
    const bool in_wlcg = !wlcg || (user_group && Contains(*wlcg, "/" + group));
    if (!in_groups || !in_wlcg) {
        return Error::PermissionDenied("The group " + group + " is not in the user's authorized groups");
    }
    return Ok();
}

bool IsVisibleTo(const Principal& principal, const std::optional<Owner>& owner) {
    return principal.local || !owner || owner->issuer == principal.issuer;
}

Status CheckOwnership(const Principal& principal, const std::optional<Owner>& owner, bool admins_operate_on_any) {
    if (principal.local) {
        return Ok();
    }
    if (owner && owner->issuer == principal.issuer && owner->subject == principal.subject) {
        return Ok();
    }
    const bool same_issuer_or_unowned = !owner || owner->issuer == principal.issuer;
    if (admins_operate_on_any && principal.admin && same_issuer_or_unowned) {
        return Ok();
    }
    return Error::PermissionDenied("Only the owner of the deployment can perform this operation");
}

Result<ListFilter> ResolveListFilter(
    const Principal& principal, std::string_view created_by, const std::optional<std::string>& user_group, ListKind kind
) {
    if (principal.local) {
        return LocalListFilter(principal, created_by, user_group);
    }
    if (user_group && kind == ListKind::kDeployments) {
        ORCH_RETURN_IF_ERROR(CheckUserGroup(principal, user_group));
    }
    // Starts from what the caller may see at all; everything below only narrows it.
    ListFilter filter{OwnerFilter::VisibleTo(principal), kind == ListKind::kDeployments ? user_group : std::nullopt};
    if (created_by.empty() && principal.admin) {
        return filter;  // admins see every deployment of their issuer, and unowned ones
    }
    if (created_by.empty() || created_by == "me") {
        filter.owner.OwnedBy(principal.issuer, principal.subject);
        return filter;
    }
    auto owner = ParseOwnerText(created_by);
    if (!owner) {
        return IllegalCreatedBy(created_by);
    }
    if (kind == ListKind::kSchedules && !principal.admin) {
        return IllegalCreatedBy(created_by);
    }
    // The original compares subjects only; OwnerFilter keeps other issuers out (an owner of
    // another issuer lists nothing, even when the subjects are equal).
    if (owner->subject != principal.subject && !principal.admin) {
        return Error::PermissionDenied("Only admin can retrieve deployments for " + std::string(created_by));
    }
    filter.owner.OwnedBy(owner->issuer, owner->subject);
    return filter;
}

}  // namespace orch::auth
