#include "connectors/keystone_auth.hpp"

#include "common/log.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/workload.hpp"
#include "openstack/openstack_errors.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace orch::connectors {
namespace {

using openstack::ResponseFailure;

std::string KeystoneBase(std::string url) {
    while (!url.empty() && url.back() == '/') {
        url.pop_back();
    }
    if (url.size() < 3 || url.compare(url.size() - 3, 3, "/v3") != 0) {
        url += "/v3";
    }
    return url;
}

// Keystone project ids are 32 lowercase hex digits; anything else is taken as a name.
bool LooksLikeProjectId(const std::string& text) {
    return text.size() == 32 && std::all_of(text.begin(), text.end(), [](unsigned char c) {
               return std::isdigit(c) != 0 || (c >= 'a' && c <= 'f');
           });
}

// "2026-11-22T02:34:56.000000Z" (Keystone's expires_at) as a time point; nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> ParseExpiry(const std::string& text) {
    std::tm tm{};
    int consumed = 0;
    if (std::sscanf(  // NOLINT(cert-err34-c): the result count and the consumed length are checked
            text.c_str(),
            "%4d-%2d-%2dT%2d:%2d:%2d%n",
            &tm.tm_year,
            &tm.tm_mon,
            &tm.tm_mday,
            &tm.tm_hour,
            &tm.tm_min,
            &tm.tm_sec,
            &consumed
        ) != 6 ||
        consumed != 19) {
        return std::nullopt;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const std::time_t seconds = timegm(&tm);
    if (seconds == -1) {
        return std::nullopt;
    }
    return std::chrono::system_clock::from_time_t(seconds);
}

std::string Method(const Credentials& credentials, const SiteTarget& target) {
    if (!credentials.application_credential_id.empty()) {
        return "application_credential";
    }
    if (!credentials.bearer_token.empty() && target.options.contains("identity_provider")) {
        return "federation";
    }
    if (!credentials.username.empty()) {
        return "password";
    }
    return "";
}

// Different credentials must not share a token; the secret itself is only hashed, never kept.
std::string CacheKey(const SiteTarget& target) {
    const auto& c = target.credentials;
    const std::string secret = c.password + '\n' + c.application_credential_secret + '\n' + c.bearer_token;
    return Method(c, target) + '\n' + KeystoneBase(target.endpoint) + '\n' + target.project + '\n' + c.username + '\n' +
           c.application_credential_id + '\n' + OptionString(target, "identity_provider", "") + '\n' +
           std::to_string(std::hash<std::string>{}(secret));
}

Json Scope(const SiteTarget& target) {
    if (LooksLikeProjectId(target.project)) {
        return {{"project", {{"id", target.project}}}};
    }
    return {
        {"project",
         {{"name", target.project}, {"domain", {{"name", OptionString(target, "project_domain", "Default")}}}}}};
}

}  // namespace

KeystoneAuth::KeystoneAuth(SiteClientFactory& clients, const Clock& clock, KeystoneOptions options)
    : clients_(clients), clock_(clock), options_(options) {}

ConnectorResult<ScopedToken> KeystoneAuth::Token(const SiteTarget& target) {
    const std::string key = CacheKey(target);
    {
        std::lock_guard lock(mutex_);
        if (const auto it = cache_.find(key); it != cache_.end()) {
            if (it->second.expires_at - options_.refresh_margin > clock_.now()) {
                return it->second;
            }
            cache_.erase(it);
        }
    }
    auto issued = Issue(target);
    if (auto* token = std::get_if<ScopedToken>(&issued)) {
        Store(key, *token);
    }
    return issued;
}

void KeystoneAuth::Invalidate(const SiteTarget& target) {
    std::lock_guard lock(mutex_);
    cache_.erase(CacheKey(target));
}

void KeystoneAuth::Store(const std::string& key, const ScopedToken& token) {
    std::lock_guard lock(mutex_);
    if (cache_.size() >= options_.max_cached_tokens) {
        // Expired entries go first; when none has, the one closest to expiry makes room.
        const auto now = clock_.now();
        std::erase_if(cache_, [&](const auto& entry) { return entry.second.expires_at <= now; });
        if (cache_.size() >= options_.max_cached_tokens) {
            cache_.erase(std::min_element(cache_.begin(), cache_.end(), [](const auto& a, const auto& b) {
                return a.second.expires_at < b.second.expires_at;
            }));
        }
    }
    cache_[key] = token;
}

ConnectorResult<ScopedToken> KeystoneAuth::Issue(const SiteTarget& target) {
    const auto& c = target.credentials;
    const std::string base = KeystoneBase(target.endpoint);
    const std::string method = Method(c, target);
    if (method.empty()) {
        return Failure{FailureKind::kTryAnotherSite, "no OpenStack credentials for site " + target.site_id};
    }
    auto made = clients_.ClientFor(target);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    http::Client& client = *std::get<std::shared_ptr<http::Client>>(made);
    if (method == "application_credential") {
        // Keystone scopes the token by the credential and refuses an explicit scope.
        const Json body = {
            {"auth",
             {{"identity",
               {{"methods", {"application_credential"}},
                {"application_credential",
                 {{"id", c.application_credential_id}, {"secret", c.application_credential_secret}}}}}}}};
        return PostAuth(client, target, base, body, "Keystone application credential authentication");
    }
    if (method == "federation") {
        return Federated(client, target, base);
    }
    if (method == "password") {
        if (target.project.empty()) {
            return Failure{
                FailureKind::kTryAnotherSite, "site " + target.site_id + " names no OpenStack project to scope to"};
        }
        const Json user = {
            {"name", c.username},
            {"domain", {{"name", OptionString(target, "user_domain", "Default")}}},
            {"password", c.password}};
        const Json body = {
            {"auth",
             {{"identity", {{"methods", {"password"}}, {"password", {{"user", user}}}}}, {"scope", Scope(target)}}}};
        return PostAuth(client, target, base, body, "Keystone password authentication");
    }
    return Failure{FailureKind::kTryAnotherSite, "no OpenStack credentials for site " + target.site_id};
}

ConnectorResult<ScopedToken> KeystoneAuth::Federated(
    http::Client& client, const SiteTarget& target, const std::string& base
) {
    const std::string idp = OptionString(target, "identity_provider", "");
    const std::string protocol = OptionString(target, "protocol", "openid");
    http::ClientRequest request;
    request.method = "POST";
    request.url = base + "/OS-FEDERATION/identity_providers/" + http::UrlEncode(idp) + "/protocols/" +
                  http::UrlEncode(protocol) + "/auth";
    request.headers = {{"Authorization", "Bearer " + target.credentials.bearer_token}, {"Accept", "application/json"}};
    request.timeout = options_.call_timeout;
    const std::string what =
        "Keystone federated authentication (identity provider " + idp + ", protocol " + protocol + ")";
    auto response = client.Send(request);
    if (!response) {
        return ClassifyTransportError(response.error(), "Keystone of site " + target.site_id);
    }
    const std::string unscoped = response->Header("X-Subject-Token");
    if (response->status != 201 || unscoped.empty()) {
        return ResponseFailure(*response, what);
    }

    // The rescope needs a project id: find the site's project among those the user may use.
    http::ClientRequest projects;
    projects.url = base + "/auth/projects";
    projects.headers = {{"X-Auth-Token", unscoped}, {"Accept", "application/json"}};
    projects.timeout = options_.call_timeout;
    auto listed = client.Send(projects);
    if (!listed) {
        return ClassifyTransportError(listed.error(), "Keystone of site " + target.site_id);
    }
    auto body = ParseJson(listed->body);
    if (listed->status != 200 || !body || !body->contains("projects") || !(*body)["projects"].is_array()) {
        return ResponseFailure(*listed, "Keystone project list");
    }
    std::vector<std::string> ids;
    for (const auto& project : (*body)["projects"]) {
        const std::string id = project.value("id", "");
        if (target.project.empty() || id == target.project || project.value("name", "") == target.project) {
            ids.push_back(id);
        }
    }
    if (ids.size() != 1) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "the federated user may use " + std::to_string(ids.size()) + " projects matching '" + target.project +
                "' on site " + target.site_id + "; the site must name exactly one",
        };
    }
    const Json rescope = {
        {"auth",
         {{"identity", {{"methods", {"token"}}, {"token", {{"id", unscoped}}}}},
          {"scope", {{"project", {{"id", ids.front()}}}}}}}};
    return PostAuth(client, target, base, rescope, "Keystone rescoping of the federated token");
}

ConnectorResult<ScopedToken> KeystoneAuth::PostAuth(
    http::Client& client, const SiteTarget& target, const std::string& base, const Json& body, const std::string& what
) {
    http::ClientRequest request;
    request.method = "POST";
    request.url = base + "/auth/tokens";
    request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    request.body = body.dump();
    request.timeout = options_.call_timeout;
    auto response = client.Send(request);
    if (!response) {
        return ClassifyTransportError(response.error(), "Keystone of site " + target.site_id);
    }
    ScopedToken token;
    token.token = response->Header("X-Subject-Token");
    auto parsed = ParseJson(response->body);
    if (response->status != 201 || token.token.empty() || !parsed || !parsed->contains("token")) {
        return ResponseFailure(*response, what);
    }
    const Json& t = (*parsed)["token"];
    const auto expires = ParseExpiry(t.value("expires_at", ""));
    if (!expires) {
        return Failure{FailureKind::kRetryHere, what + ": the token has no readable expires_at"};
    }
    token.expires_at = *expires;
    if (t.contains("project") && t["project"].is_object()) {
        token.project_id = t["project"].value("id", "");
    }
    if (t.contains("catalog") && t["catalog"].is_array()) {
        token.catalog = t["catalog"];
    }
    ORCH_LOG_DEBUG("keystone token issued", {{"project", token.project_id}});
    return token;
}

ConnectorResult<std::string> KeystoneAuth::
    Endpoint(const ScopedToken& token, const std::string& service_type, const std::string& region, const std::string& interface) {
    for (const auto& service : token.catalog) {
        if (!service.is_object() || service.value("type", "") != service_type || !service.contains("endpoints")) {
            continue;
        }
        for (const auto& endpoint : service["endpoints"]) {
            if (endpoint.value("interface", "") != interface) {
                continue;
            }
            const std::string endpoint_region = endpoint.value("region_id", endpoint.value("region", ""));
            if (region.empty() || endpoint_region == region) {
                std::string url = endpoint.value("url", "");
                while (!url.empty() && url.back() == '/') {
                    url.pop_back();
                }
                return url;
            }
        }
    }
    return Failure{
        FailureKind::kTryAnotherSite,
        "the site's catalog has no " + interface + " " + service_type + " endpoint" +
            (region.empty() ? std::string() : " in region " + region),
    };
}

}  // namespace orch::connectors
