#include "orchestrator/auth/owner_filter.hpp"

#include "orchestrator/auth/principal.hpp"

#include <algorithm>

namespace orch::auth {

OwnerFilter OwnerFilter::VisibleTo(const Principal& principal) {
    OwnerFilter filter;
    filter.include_unowned_ = true;
    if (!principal.local) {
        filter.scoped_ = true;
        filter.issuer_ = principal.issuer;
    }
    if (!principal.local && !principal.admin) {
        std::vector<std::string> groups = principal.groups.value_or(std::vector<std::string>{});
        for (const auto& wlcg : principal.wlcg_groups.value_or(std::vector<std::string>{})) {
            groups.push_back(wlcg.rfind('/', 0) == 0 ? wlcg.substr(1) : wlcg);
        }
        std::sort(groups.begin(), groups.end());
        groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
        filter.groups_ = std::move(groups);
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

bool OwnerFilter::Admits(const std::string& owner_issuer, const std::string& owner_subject) const {
    if (nothing_) {
        return false;
    }
    if (issuer_ && owner_issuer != *issuer_ && !(include_unowned_ && owner_issuer.empty())) {
        return false;
    }
    return !subject_ || owner_subject == *subject_;
}

}  // namespace orch::auth
