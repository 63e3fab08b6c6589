#include "orchestrator/auth/principal.hpp"

#include <algorithm>

namespace orch::auth {

bool Principal::InGroup(std::string_view group) const {
    return groups && std::find(groups->begin(), groups->end(), group) != groups->end();
}

Principal LocalPrincipal() {
    Principal p;
    p.issuer = std::string(kLocalIssuer);
    p.subject = std::string(kLocalSubject);
    p.preferred_username = "local";
    p.organisation = "local";
    p.scopes = {"openid", "profile", "offline_access", "fts:submit-transfer"};
    p.admin = true;
    p.local = true;
    p.expires_at = std::chrono::system_clock::time_point::max();
    p.token_id = "local";
    return p;
}

}  // namespace orch::auth
