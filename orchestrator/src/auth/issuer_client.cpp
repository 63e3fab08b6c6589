#include "orchestrator/auth/issuer_client.hpp"

#include "common/log.hpp"
#include "orchestrator/auth/base64.hpp"

#include <algorithm>

namespace orch::auth {
namespace {

constexpr std::size_t kDiscoveryMaxBytes = 256u << 10;
constexpr std::size_t kJwksMaxBytes = 1u << 20;
constexpr std::size_t kSmallAnswerMaxBytes = 64u << 10;

std::string FormEncode(const FormFields& form) {
    std::string body;
    for (const auto& [name, value] : form) {
        if (!body.empty()) {
            body.push_back('&');
        }
        body += http::UrlEncode(name) + "=" + http::UrlEncode(value);
    }
    return body;
}

// Keeps an IdP's error text printable and short, and drops it entirely if it repeats a secret we sent.
std::string SafeDescription(std::string text, const FormFields& sent) {
    for (const auto& [name, value] : sent) {
        if (value.size() >= 8 && text.find(value) != std::string::npos) {
            return "[description withheld: it repeats a credential]";
        }
    }
    text.erase(
        std::remove_if(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c > 0x7e; }), text.end()
    );
    return text.size() > 200 ? text.substr(0, 200) + "..." : text;
}

http::ClientRequest Request(const char* method, const std::string& url) {
    http::ClientRequest request;
    request.method = method;
    request.url = url;
    return request;
}

std::string Str(const Json& json, const char* name) {
    const auto it = json.find(name);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// OAuth error answers (RFC 6749 §5.2) mapped to what they mean for us.
Error TokenEndpointError(const std::string& issuer, int status, const Json& body, const FormFields& sent) {
    const std::string error = Str(body, "error");
    const std::string description = SafeDescription(Str(body, "error_description"), sent);
    const std::string detail =
        error.empty() ? "HTTP " + std::to_string(status) : error + (description.empty() ? "" : ": " + description);
    if (status >= 500) {
        return Error::Unavailable("the token endpoint of " + issuer + " failed (" + detail + ")");
    }
    if (error == "invalid_client") {
        return Error::Internal(
            "the orchestrator's client credentials were rejected by " + issuer + " (" + detail + ")"
        );
    }
    if (error == "invalid_grant") {
        return Error::Unauthenticated("the issuer " + issuer + " rejected the grant (" + detail + ")");
    }
    return Error::PermissionDenied("the issuer " + issuer + " refused the request (" + detail + ")");
}

}  // namespace

bool IsSecureOrLoopbackUrl(const std::string& url) {
    auto parsed = http::ParseUrl(url);
    if (!parsed) {
        return false;
    }
    const bool loopback =
        parsed->host == "127.0.0.1" || parsed->host == "localhost" || parsed->host == "::1" || parsed->host == "[::1]";
    return parsed->scheme == "https" || loopback;
}

IssuerClient::IssuerClient(const IssuerConfig& config, const AuthConfig& limits, http::Client& http, const Clock& clock)
    : config_(config),
      http_(http),
      clock_(clock),
      timeout_(limits.http_timeout),
      discovery_max_age_(limits.discovery_max_age),
      slots_(std::clamp(limits.max_concurrent_idp_calls, 1, 256)) {}

std::string IssuerClient::BasicCredentials() const {
    return "Basic " + Base64Encode(http::UrlEncode(config_.client_id) + ":" + http::UrlEncode(config_.client_secret));
}

Result<http::ClientResponse> IssuerClient::Send(http::ClientRequest request, std::size_t max_bytes) {
    // Bounded fan-out: a burst of new tokens cannot open unbounded connections to the IdP.
    if (!slots_.try_acquire_for(timeout_)) {
        return Error::Unavailable("too many concurrent calls to issuer " + config_.issuer);
    }
    request.timeout = timeout_;
    request.max_response_bytes = max_bytes;
    request.headers.emplace_back("Accept", "application/json");
    auto response = http_.Send(request);
    slots_.release();
    return response;
}

Result<Json> IssuerClient::SendForJson(http::ClientRequest request, std::size_t max_bytes, const char* what) {
    const std::string url = request.url;
    auto response = Send(std::move(request), max_bytes);
    if (!response) {
        return Error{
            response.error().code == ErrorCode::kDeadlineExceeded ? ErrorCode::kUnavailable : response.error().code,
            std::string("cannot get the ") + what + " of " + config_.issuer + ": " + response.error().message};
    }
    if (response->status != 200) {
        return Error::Unavailable(
            std::string("the ") + what + " of " + config_.issuer + " answered HTTP " + std::to_string(response->status)
        );
    }
    auto json = ParseJson(response->body, 32);
    if (!json || !json->is_object()) {
        return Error::Unavailable(std::string("the ") + what + " of " + config_.issuer + " is not a JSON object");
    }
    return std::move(*json);
}

Result<IssuerEndpoints> IssuerClient::Discover() {
    std::string url = config_.discovery_url;
    if (url.empty()) {
        url = config_.issuer;
        if (!url.empty() && url.back() == '/') {
            url.pop_back();  // OIDC Discovery §4: strip one trailing slash before appending
        }
        url += "/.well-known/openid-configuration";
    }
    auto doc = SendForJson(Request("GET", url), kDiscoveryMaxBytes, "discovery document");
    if (!doc) {
        return std::move(doc).error();
    }
    if (Str(*doc, "issuer") != config_.issuer) {
        return Error::Unavailable(
            "the discovery document of " + config_.issuer + " names another issuer ('" +
            Str(*doc, "issuer").substr(0, 200) + "')"
        );
    }
    IssuerEndpoints e;
    e.jwks_uri = Str(*doc, "jwks_uri");
    e.token_endpoint = Str(*doc, "token_endpoint");
    e.introspection_endpoint = Str(*doc, "introspection_endpoint");
    e.userinfo_endpoint = Str(*doc, "userinfo_endpoint");
    e.revocation_endpoint = Str(*doc, "revocation_endpoint");
    e.registration_endpoint = Str(*doc, "registration_endpoint");
    for (const std::string* endpoint :
         {&e.jwks_uri,
          &e.token_endpoint,
          &e.introspection_endpoint,
          &e.userinfo_endpoint,
          &e.revocation_endpoint,
          &e.registration_endpoint}) {
        if (!endpoint->empty() && !IsSecureOrLoopbackUrl(*endpoint)) {
            return Error::Unavailable("the discovery document of " + config_.issuer + " has a non-https endpoint");
        }
    }
    return e;
}

Result<IssuerEndpoints> IssuerClient::Endpoints() {
    const std::lock_guard lock(discovery_mutex_);
    const auto now = clock_.steady_now();
    const bool all_configured = !config_.jwks_uri.empty() && !config_.token_endpoint.empty() &&
                                !config_.introspection_endpoint.empty() && !config_.userinfo_endpoint.empty();
    if (!all_configured && (!endpoints_ || now - discovered_at_ > discovery_max_age_)) {
        auto discovered = Discover();
        if (discovered) {
            endpoints_ = std::move(*discovered);
            discovered_at_ = now;
        } else if (!endpoints_) {
            return std::move(discovered).error();
        } else {
            ORCH_LOG_WARN(
                "discovery refresh failed; keeping the previous endpoints",
                {{"issuer", config_.issuer}, {"error", discovered.error().message}}
            );
            discovered_at_ = now;  // retry after another max-age, not on every call
        }
    }
    IssuerEndpoints e = endpoints_.value_or(IssuerEndpoints{});
    auto override_with = [](std::string& target, const std::string& configured) {
        if (!configured.empty()) {
            target = configured;
        }
    };
    override_with(e.jwks_uri, config_.jwks_uri);
    override_with(e.token_endpoint, config_.token_endpoint);
    override_with(e.introspection_endpoint, config_.introspection_endpoint);
    override_with(e.userinfo_endpoint, config_.userinfo_endpoint);
    override_with(e.revocation_endpoint, config_.revocation_endpoint);
    return e;
}

Result<KeySet> IssuerClient::FetchKeys() {
    auto endpoints = Endpoints();
    if (!endpoints) {
        return std::move(endpoints).error();
    }
    if (endpoints->jwks_uri.empty()) {
        return Error::Unavailable("issuer " + config_.issuer + " publishes no jwks_uri");
    }
    auto response = Send(Request("GET", endpoints->jwks_uri), kJwksMaxBytes);
    if (!response) {
        return Error::Unavailable("cannot fetch the keys of " + config_.issuer + ": " + response.error().message);
    }
    if (response->status != 200) {
        return Error::Unavailable(
            "the JWKS endpoint of " + config_.issuer + " answered HTTP " + std::to_string(response->status)
        );
    }
    auto keys = ParseJwks(response->body);
    if (!keys) {
        return Error::Unavailable("the JWKS of " + config_.issuer + " is unusable: " + keys.error().message);
    }
    return keys;
}

Result<Json> IssuerClient::Introspect(std::string_view token, std::string_view token_type_hint) {
    auto endpoints = Endpoints();
    if (!endpoints) {
        return std::move(endpoints).error();
    }
    if (endpoints->introspection_endpoint.empty()) {
        return Error::Unavailable("issuer " + config_.issuer + " has no introspection endpoint");
    }
    FormFields form{{"token", std::string(token)}};
    if (!token_type_hint.empty()) {
        form.emplace_back("token_type_hint", std::string(token_type_hint));
    }
    http::ClientRequest request = Request("POST", endpoints->introspection_endpoint);
    request.headers = {{"Authorization", BasicCredentials()}, {"Content-Type", "application/x-www-form-urlencoded"}};
    request.body = FormEncode(form);
    return SendForJson(std::move(request), kSmallAnswerMaxBytes, "introspection endpoint");
}

Result<Json> IssuerClient::Userinfo(std::string_view access_token) {
    auto endpoints = Endpoints();
    if (!endpoints) {
        return std::move(endpoints).error();
    }
    if (endpoints->userinfo_endpoint.empty()) {
        return Error::Unavailable("issuer " + config_.issuer + " has no userinfo endpoint");
    }
    http::ClientRequest request = Request("GET", endpoints->userinfo_endpoint);
    request.headers = {{"Authorization", "Bearer " + std::string(access_token)}};
    auto response = Send(std::move(request), kSmallAnswerMaxBytes);
    if (!response) {
        return Error::Unavailable(
            "cannot reach the userinfo endpoint of " + config_.issuer + ": " + response.error().message
        );
    }
    if (response->status == 401 || response->status == 403) {
        return Error::Unauthenticated("the issuer's userinfo endpoint rejected the token");
    }
    if (response->status != 200) {
        return Error::Unavailable(
            "the userinfo endpoint of " + config_.issuer + " answered HTTP " + std::to_string(response->status)
        );
    }
    auto json = ParseJson(response->body, 32);
    if (!json || !json->is_object()) {
        return Error::Unavailable("the userinfo answer of " + config_.issuer + " is not a JSON object");
    }
    return std::move(*json);
}

Result<TokenGrant> IssuerClient::RequestToken(const FormFields& form) {
    auto endpoints = Endpoints();
    if (!endpoints) {
        return std::move(endpoints).error();
    }
    if (endpoints->token_endpoint.empty()) {
        return Error::Unavailable("issuer " + config_.issuer + " has no token endpoint");
    }
    http::ClientRequest request = Request("POST", endpoints->token_endpoint);
    request.headers = {{"Authorization", BasicCredentials()}, {"Content-Type", "application/x-www-form-urlencoded"}};
    request.body = FormEncode(form);
    auto response = Send(std::move(request), kSmallAnswerMaxBytes);
    if (!response) {
        return Error::Unavailable(
            "cannot reach the token endpoint of " + config_.issuer + ": " + response.error().message
        );
    }
    auto json = ParseJson(response->body, 16);
    const Json body = json && json->is_object() ? std::move(*json) : Json::object();
    if (response->status != 200) {
        return TokenEndpointError(config_.issuer, response->status, body, form);
    }
    TokenGrant grant;
    grant.access_token = Str(body, "access_token");
    grant.refresh_token = Str(body, "refresh_token");
    grant.scope = Str(body, "scope");
    if (const auto it = body.find("expires_in"); it != body.end() && it->is_number()) {
        grant.expires_in = static_cast<std::int64_t>(std::clamp(it->get<double>(), 0.0, 1e9));
    }
    if (grant.access_token.empty()) {
        return Error::Unavailable("the token endpoint of " + config_.issuer + " returned no access token");
    }
    return grant;
}

Status IssuerClient::Revoke(std::string_view token, std::string_view token_type_hint) {
    auto endpoints = Endpoints();
    if (!endpoints) {
        return std::move(endpoints).error();
    }
    if (endpoints->revocation_endpoint.empty()) {
        return Ok();
    }
    http::ClientRequest request = Request("POST", endpoints->revocation_endpoint);
    request.headers = {{"Authorization", BasicCredentials()}, {"Content-Type", "application/x-www-form-urlencoded"}};
    request.body = FormEncode({{"token", std::string(token)}, {"token_type_hint", std::string(token_type_hint)}});
    auto response = Send(std::move(request), kSmallAnswerMaxBytes);
    if (!response) {
        return std::move(response).error();
    }
    if (response->status != 200) {
        return Error::Unavailable(
            "the revocation endpoint of " + config_.issuer + " answered HTTP " + std::to_string(response->status)
        );
    }
    return Ok();
}

}  // namespace orch::auth
