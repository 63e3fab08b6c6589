#include "orchestrator/auth/owner_filter.hpp"

#include "orchestrator/auth/principal.hpp"

namespace orch::auth {

OwnerFilter OwnerFilter::VisibleTo(const Principal& principal) {
    OwnerFilter filter;
    filter.include_unowned_ = true;
    if (!principal.local) {
        filter.scoped_ = true;
        filter.issuer_ = principal.issuer;
    }
    return filter;
}

OwnerFilter& OwnerFilter::OwnedBy(const std::string& issuer, const std::string& subject) {
    if (scoped_ && issuer != *issuer_) {
        nothing_ = true;  // another issuer's rows are never the caller's to list; issuer_ stays
    } else {
        issuer_ = issuer;
    }
    subject_ = subject;
    include_unowned_ = false;
    return *this;
}

}  // namespace orch::auth
