#pragma once

// Owner filters as the API builds them, for the store tests of this folder.
#include <orchestrator/auth/owner_filter.hpp>
#include <orchestrator/auth/principal.hpp>

#include <optional>
#include <string>

namespace orch::test {

/// What a caller of `issuer` sees (nullopt: the local user of auth-disabled mode), optionally
/// narrowed to one owner.
inline auth::OwnerFilter Scope(
    const std::optional<std::string>& issuer,
    const std::optional<std::string>& owner_issuer = {},
    const std::optional<std::string>& owner_subject = {}
) {
    auth::Principal caller;
    caller.local = !issuer;
    caller.issuer = issuer.value_or("");
    auto filter = auth::OwnerFilter::VisibleTo(caller);
    if (owner_subject) {
        filter.OwnedBy(*owner_issuer, *owner_subject);
    }
    return filter;
}

}  // namespace orch::test
