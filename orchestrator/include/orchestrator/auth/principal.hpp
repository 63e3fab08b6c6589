#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace orch::auth {

/// Identity of the single user in `auth: disabled` mode.
inline constexpr std::string_view kLocalIssuer = "local";
inline constexpr std::string_view kLocalSubject = "local-user";

/// The caller of one API request. Identity is (issuer, subject); everything else is what the
/// token, introspection or userinfo said about them. Holds no token: safe to log and copy.
struct Principal {
    std::string issuer;
    std::string subject;
    std::string preferred_username;
    std::string email;         ///< the `email` claim (token, introspection or userinfo); empty when absent
    std::string client_id;     ///< the client the token was issued to
    std::string organisation;  ///< IAM `organisation_name`, informational
    /// Group names without a leading '/'. Absent (nullopt) when no source named any; an empty list
    /// when the token carries the claim empty, which contract §5.4 checks like any other list.
    std::optional<std::vector<std::string>> groups;
    std::optional<std::vector<std::string>> wlcg_groups;  ///< the raw `wlcg.groups` claim ("/name"), §5.4
    std::set<std::string, std::less<>> scopes;
    bool admin = false;  ///< member of the issuer's admin group
    bool local = false;  ///< the local user of `auth: disabled` mode (every scope, admin, no group checks)
    std::chrono::system_clock::time_point expires_at{};
    std::string token_id;  ///< `jti`, or a SHA-256 prefix of the token: for logs, never the token

    bool HasScope(std::string_view scope) const { return scopes.find(scope) != scopes.end(); }
    bool InGroup(std::string_view group) const;
    /// "subject@issuer", the createdBy query form.
    std::string OwnerText() const { return subject + "@" + issuer; }
};

/// The principal every request gets in `auth: disabled` mode.
Principal LocalPrincipal();

}  // namespace orch::auth
