#include "orchestrator/auth/claims_mapping.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

namespace orch::auth {
namespace {

std::vector<std::string> StringArray(const Json& value) {
    std::vector<std::string> out;
    if (value.is_string()) {
        out.push_back(value.get<std::string>());
    } else if (value.is_array()) {
        for (const auto& item : value) {
            if (item.is_string()) {
                out.push_back(item.get<std::string>());
            }
        }
    }
    return out;
}

// nullopt when the claim is absent; a present claim, even empty, is a list.
std::optional<std::vector<std::string>> Groups(const Json& source, const std::string& claim) {
    const auto it = source.find(claim);
    if (it == source.end()) {
        return std::nullopt;
    }
    std::vector<std::string> groups = StringArray(*it);
    for (auto& group : groups) {
        if (!group.empty() && group.front() == '/') {
            group.erase(0, 1);
        }
    }
    return groups;
}

// Introspection and userinfo stand in for a groups claim the token lacks; an empty list there
// names no group and leaves the next source (userinfo) to be asked.
std::optional<std::vector<std::string>> NonEmpty(std::optional<std::vector<std::string>> groups) {
    return groups && !groups->empty() ? std::move(groups) : std::nullopt;
}

std::optional<std::vector<std::string>> AnswerGroups(const Json& answer, const IssuerConfig& issuer) {
    auto groups = NonEmpty(Groups(answer, issuer.groups_claim));
    if (!groups && issuer.groups_claim != "groups") {
        groups = NonEmpty(Groups(answer, "groups"));
    }
    return groups;
}

std::set<std::string, std::less<>> ScopeSet(const Json& value) {
    std::set<std::string, std::less<>> out;
    if (value.is_string()) {
        std::istringstream in(value.get<std::string>());
        std::string scope;
        while (in >> scope) {
            out.insert(scope);
        }
    } else if (value.is_array()) {
        for (const auto& item : StringArray(value)) {
            out.insert(item);
        }
    }
    return out;
}

std::string Text(const Json& source, const char* name) {
    const auto it = source.find(name);
    return it != source.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void FillIfEmpty(std::string& target, const std::string& value) {
    if (target.empty()) {
        target = value;
    }
}

}  // namespace

ClaimsCoverage ApplyTokenClaims(const Json& claims, const IssuerConfig& issuer, Principal& principal) {
    ClaimsCoverage coverage;
    principal.issuer = issuer.issuer;
    principal.subject = Text(claims, "sub");
    principal.preferred_username = Text(claims, "preferred_username");
    principal.email = Text(claims, "email");
    principal.client_id = Text(claims, "client_id");
    principal.organisation = Text(claims, "organisation_name");
    principal.token_id = Text(claims, "jti");
    if (const auto exp = claims.find("exp"); exp != claims.end() && exp->is_number()) {
        principal.expires_at = std::chrono::system_clock::time_point(
            std::chrono::seconds(static_cast<std::int64_t>(std::clamp(exp->get<double>(), 0.0, 1e11)))
        );
    }
    for (const char* name : {"scope", "scp"}) {
        if (const auto it = claims.find(name); it != claims.end()) {
            principal.scopes = ScopeSet(*it);
            coverage.scopes = true;
            break;
        }
    }
    // A claim the token carries, even empty, is its answer (contract §5.4 reads the token).
    principal.groups = Groups(claims, issuer.groups_claim);
    if (const auto wlcg = claims.find("wlcg.groups"); wlcg != claims.end()) {
        principal.wlcg_groups = StringArray(*wlcg);
    }
    coverage.groups = principal.groups.has_value();
    return coverage;
}

void ApplyIntrospection(const Json& answer, const IssuerConfig& issuer, Principal& principal) {
    if (const auto scope = answer.find("scope"); scope != answer.end()) {
        principal.scopes = ScopeSet(*scope);
    }
    if (!principal.groups) {
        principal.groups = AnswerGroups(answer, issuer);
    }
    FillIfEmpty(principal.preferred_username, Text(answer, "preferred_username"));
    FillIfEmpty(principal.email, Text(answer, "email"));
    FillIfEmpty(principal.organisation, Text(answer, "organisation_name"));
    FillIfEmpty(principal.client_id, Text(answer, "client_id"));
}

void ApplyUserinfo(const Json& answer, const IssuerConfig& issuer, Principal& principal) {
    if (!principal.groups) {
        principal.groups = answer.contains("edu_person_unique_id") ? NonEmpty(Groups(answer, "eduperson_entitlement"))
                                                                   : AnswerGroups(answer, issuer);
    }
    FillIfEmpty(principal.preferred_username, Text(answer, "preferred_username"));
    FillIfEmpty(principal.email, Text(answer, "email"));
    FillIfEmpty(principal.organisation, Text(answer, "organisation_name"));
}

void ApplyAdmin(const IssuerConfig& issuer, Principal& principal) {
    principal.admin = !issuer.admin_group.empty() && principal.InGroup(issuer.admin_group);
}

bool CarriesNul(const Principal& principal) {
    const auto nul = [](std::string_view text) {
        return text.find('\0') != std::string_view::npos;
    };
    const auto any_nul = [&](const std::optional<std::vector<std::string>>& list) {
        return list && std::any_of(list->begin(), list->end(), nul);
    };
    return nul(principal.issuer) || nul(principal.subject) || nul(principal.preferred_username) ||
           nul(principal.email) || nul(principal.client_id) || nul(principal.organisation) || nul(principal.token_id) ||
           any_nul(principal.groups) || any_nul(principal.wlcg_groups) ||
           std::any_of(principal.scopes.begin(), principal.scopes.end(), nul);
}

}  // namespace orch::auth
