#include "orchestrator/store/owner_filter.hpp"

#include "orchestrator/auth/principal.hpp"

namespace orch::store {

OwnerFilter OwnerFilter::VisibleTo(const auth::Principal& principal) {
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

}  // namespace orch::store
