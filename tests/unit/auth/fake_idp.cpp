#include "fake_idp.hpp"

#include "orchestrator/auth/base64.hpp"

#include <sstream>

namespace orch::test {

std::map<std::string, std::string> ParseForm(const std::string& body) {
    std::map<std::string, std::string> form;
    std::istringstream in(body);
    for (std::string pair; std::getline(in, pair, '&');) {
        const auto eq = pair.find('=');
        form[http::UrlDecode(pair.substr(0, eq), true)] =
            eq == std::string::npos ? "" : http::UrlDecode(pair.substr(eq + 1), true);
    }
    return form;
}

http::ClientResponse JsonResponse(int status, const Json& body) {
    http::ClientResponse response;
    response.status = status;
    response.headers = {{"Content-Type", "application/json"}};
    response.body = body.dump();
    return response;
}

FakeIdp::FakeIdp() = default;

FakeIdp::Issuer& FakeIdp::Add(const std::string& name) {
    Issuer issuer{"https://" + name + ".test/", TestKey::Rsa(name + "-rsa1"), TestKey::Ec(name + "-ec1"), {}, {}, {}};
    return issuers_.emplace(name, std::move(issuer)).first->second;
}

std::string FakeIdp::Mint(const std::string& name, const Json& claims, const std::string& alg) {
    const Issuer& issuer = issuers_.at(name);
    Json payload = {
        {"iss", issuer.url},
        {"sub", "user-1"},
        {"exp", EpochSeconds(3600)},
        {"iat", EpochSeconds()},
        {"jti", "jti-1"},
        {"client_id", "dashboard"}};
    for (const auto& [key, value] : claims.items()) {
        payload[key] = value;
    }
    return SignJwt(alg.rfind("ES", 0) == 0 ? issuer.ec : issuer.rsa, alg, payload);
}

auth::IssuerConfig FakeIdp::ConfigFor(const std::string& name) const {
    auth::IssuerConfig config;
    config.name = name;
    config.issuer = issuers_.at(name).url;
    config.client_id = "orchestrator";
    config.client_secret = "orchestrator-secret-value";
    config.algorithms = {auth::JwsAlgorithm::kRs256, auth::JwsAlgorithm::kEs256};
    return config;
}

int FakeIdp::Calls(const std::string& url_suffix) const {
    const std::lock_guard lock(mutex_);
    int total = 0;
    for (const auto& [url, count] : calls_) {
        if (url.size() >= url_suffix.size() &&
            url.compare(url.size() - url_suffix.size(), url_suffix.size(), url_suffix) == 0) {
            total += count;
        }
    }
    return total;
}

int FakeIdp::TotalCalls() const {
    const std::lock_guard lock(mutex_);
    int total = 0;
    for (const auto& entry : calls_) {
        total += entry.second;
    }
    return total;
}

Result<http::ClientResponse> FakeIdp::Send(const http::ClientRequest& request) {
    {
        const std::lock_guard lock(mutex_);
        ++calls_[request.url];
    }
    if (down) {
        return Error::Unavailable("connection refused");
    }
    for (auto& [name, issuer] : issuers_) {
        if (request.url.rfind(issuer.url, 0) == 0) {
            return Handle(issuer, request.url.substr(issuer.url.size()), request);
        }
    }
    return Error::Unavailable("no such host");
}

http::ClientResponse FakeIdp::Handle(Issuer& issuer, const std::string& path, const http::ClientRequest& request) {
    const std::string basic = "Basic " + auth::Base64Encode("orchestrator:orchestrator-secret-value");
    if (path == ".well-known/openid-configuration") {
        return JsonResponse(
            200,
            {{"issuer", issuer.url},
             {"jwks_uri", issuer.url + "jwk"},
             {"token_endpoint", issuer.url + "token"},
             {"introspection_endpoint", issuer.url + "introspect"},
             {"userinfo_endpoint", issuer.url + "userinfo"},
             {"revocation_endpoint", issuer.url + "revoke"}}
        );
    }
    if (path == "jwk") {
        return JsonResponse(200, {{"keys", {issuer.rsa.PublicJwk("RS256"), issuer.ec.PublicJwk("ES256")}}});
    }
    const bool client_ok = http::FindHeader(request.headers, "Authorization") == basic;
    const auto form = ParseForm(request.body);
    if (path == "introspect") {
        if (!client_ok) {
            return JsonResponse(401, {{"error", "invalid_client"}});
        }
        const auto it = issuer.introspection.find(form.count("token") != 0 ? form.at("token") : "");
        return JsonResponse(200, it != issuer.introspection.end() ? it->second : Json{{"active", false}});
    }
    if (path == "userinfo") {
        const std::string bearer = http::FindHeader(request.headers, "Authorization");
        const auto it = issuer.userinfo.find(bearer.size() > 7 ? bearer.substr(7) : "");
        return it != issuer.userinfo.end() ? JsonResponse(200, it->second)
                                           : JsonResponse(401, {{"error", "invalid_token"}});
    }
    if (path == "token") {
        if (!client_ok) {
            return JsonResponse(401, {{"error", "invalid_client"}});
        }
        return issuer.token_endpoint ? issuer.token_endpoint(form)
                                     : JsonResponse(400, {{"error", "unsupported_grant_type"}});
    }
    if (path == "revoke") {
        return JsonResponse(200, Json::object());
    }
    return JsonResponse(404, {{"error", "not_found"}});
}

}  // namespace orch::test
