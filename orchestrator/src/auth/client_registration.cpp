#include "orchestrator/auth/client_registration.hpp"

#include "common/json.hpp"
#include "orchestrator/auth/issuer_client.hpp"

#include <algorithm>
#include <utility>

namespace orch::auth {
namespace {

constexpr std::size_t kAnswerMaxBytes = 64u << 10;
constexpr int kAnswerMaxDepth = 8;

std::string Str(const Json& json, const char* name) {
    const auto it = json.find(name);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The issuer's `error` code only: its description may echo what we sent (the bearer token).
std::string OAuthErrorCode(const std::string& body) {
    auto json = ParseJson(body, kAnswerMaxDepth);
    std::string code = json && json->is_object() ? Str(*json, "error") : std::string();
    code.erase(
        std::remove_if(code.begin(), code.end(), [](unsigned char c) { return c < 0x21 || c > 0x7e; }), code.end()
    );
    return code.substr(0, 64);
}

Json MetadataJson(const ClientMetadata& metadata) {
    Json body = Json::object();
    body["client_name"] = metadata.client_name;
    body["redirect_uris"] = metadata.redirect_uris;
    if (!metadata.grant_types.empty()) {
        body["grant_types"] = metadata.grant_types;
        // A client without the authorization code grant has no front channel (RFC 7591 §2.1).
        const bool code = std::find(metadata.grant_types.begin(), metadata.grant_types.end(), "authorization_code") !=
                          metadata.grant_types.end();
        body["response_types"] = code ? Json::array({"code"}) : Json::array();
    }
    if (!metadata.scope.empty()) {
        body["scope"] = metadata.scope;
    }
    if (!metadata.contacts.empty()) {
        body["contacts"] = metadata.contacts;
    }
    body["token_endpoint_auth_method"] = "client_secret_basic";
    return body;
}

Error RegistrationRefused(int status, const std::string& body) {
    const std::string code = OAuthErrorCode(body);
    const std::string detail = "HTTP " + std::to_string(status) + (code.empty() ? "" : " " + code);
    if (status >= 500 || status == 429) {
        return Error::Unavailable("the client registration endpoint failed (" + detail + ")");
    }
    if (status == 401 || status == 403) {
        return Error::PermissionDenied("the issuer refused to register a client (" + detail + ")");
    }
    return Error::InvalidArgument("the issuer refused the client's metadata (" + detail + ")");
}

}  // namespace

bool SameOrigin(const std::string& a, const std::string& b) {
    auto left = http::ParseUrl(a);
    auto right = http::ParseUrl(b);
    return left && right && left->scheme == right->scheme && left->host == right->host && left->port == right->port;
}

ClientRegistration::ClientRegistration(http::Client& http, std::chrono::milliseconds timeout)
    : http_(http), timeout_(timeout) {}

Result<RegisteredClient> ClientRegistration::Register(
    const std::string& registration_endpoint, std::string_view bearer, const ClientMetadata& metadata
) {
    if (registration_endpoint.empty()) {
        return Error::Unavailable("the issuer offers no client registration endpoint");
    }
    if (!IsSecureOrLoopbackUrl(registration_endpoint)) {
        return Error::Unavailable("the issuer's client registration endpoint is not https");
    }
    http::ClientRequest request;
    request.method = "POST";
    request.url = registration_endpoint;
    request.timeout = timeout_;
    request.max_response_bytes = kAnswerMaxBytes;
    request.headers = {
        {"Authorization", "Bearer " + std::string(bearer)},
        {"Content-Type", "application/json"},
        {"Accept", "application/json"}};
    request.body = MetadataJson(metadata).dump();
    auto response = http_.Send(request);
    if (!response) {
        return Error::Unavailable("cannot reach the client registration endpoint: " + response.error().message);
    }
    if (response->status != 201 && response->status != 200) {
        return RegistrationRefused(response->status, response->body);
    }
    auto json = ParseJson(response->body, kAnswerMaxDepth);
    if (!json || !json->is_object()) {
        return Error::Unavailable("the client registration answer is not a JSON object");
    }
    RegisteredClient client{
        Str(*json, "client_id"),
        Str(*json, "client_secret"),
        Str(*json, "registration_client_uri"),
        Str(*json, "registration_access_token")};
    if (client.client_id.empty()) {
        return Error::Unavailable("the client registration answer has no client_id");
    }
    // Without a management URI on the issuer's own origin the client could never be deleted by
    // us: the caller must treat it as registered but unmanageable (and say so), not as a success.
    if (client.registration_access_token.empty() ||
        !SameOrigin(client.registration_client_uri, registration_endpoint)) {
        return Error::Unavailable(
            "the issuer registered client " + client.client_id + " without a management URI on its own origin"
        );
    }
    return client;
}

Result<ClientDeletion> ClientRegistration::Delete(const RegisteredClient& client) {
    if (!IsSecureOrLoopbackUrl(client.registration_client_uri)) {
        return Error::Unavailable("the client's management URI is not https");
    }
    http::ClientRequest request;
    request.method = "DELETE";
    request.url = client.registration_client_uri;
    request.timeout = timeout_;
    request.max_response_bytes = kAnswerMaxBytes;
    request.headers = {{"Authorization", "Bearer " + client.registration_access_token}};
    auto response = http_.Send(request);
    if (!response) {
        return Error::Unavailable(
            "cannot reach the issuer to delete client " + client.client_id + ": " + response.error().message
        );
    }
    const int status = response->status;
    if (status == 204 || status == 200 || status == 404) {
        return ClientDeletion::kDeleted;
    }
    if (status == 401) {
        return ClientDeletion::kUnconfirmed;
    }
    return Error::Unavailable(
        "the issuer did not delete client " + client.client_id + " (HTTP " + std::to_string(status) + ")"
    );
}

}  // namespace orch::auth
