#pragma once

#include "common/http_client.hpp"
#include "common/json.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "test_jwt.hpp"

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace orch::test {

/// An in-process identity provider behind the http::Client interface (unit tier: no sockets).
/// Serves discovery, JWKS, introspection, userinfo and a scriptable token endpoint for one or more
/// issuers "https://<name>.test/", and counts requests per URL.
class FakeIdp final : public http::Client {
   public:
    struct Issuer {
        std::string url;
        TestKey rsa;
        TestKey ec;
        std::map<std::string, Json> introspection;  // token → answer ({"active":false} when absent)
        std::map<std::string, Json> userinfo;       // token → answer (401 when absent)
        std::function<http::ClientResponse(const std::map<std::string, std::string>& form)> token_endpoint;
    };

    FakeIdp();
    Issuer& Add(const std::string& name);
    Issuer& Get(const std::string& name) { return issuers_.at(name); }

    /// A signed access token of `issuer` with sensible defaults merged under `claims`.
    std::string Mint(const std::string& name, const Json& claims, const std::string& alg = "RS256");

    /// Issuer config pointing at this fake (client orchestrator/secret).
    auth::IssuerConfig ConfigFor(const std::string& name) const;

    Result<http::ClientResponse> Send(const http::ClientRequest& request) override;

    int Calls(const std::string& url_suffix) const;
    int TotalCalls() const;
    bool down = false;  ///< every request fails as unreachable

   private:
    http::ClientResponse Handle(Issuer& issuer, const std::string& path, const http::ClientRequest& request);

    std::map<std::string, Issuer> issuers_;
    mutable std::mutex mutex_;
    std::map<std::string, int> calls_;
};

std::map<std::string, std::string> ParseForm(const std::string& body);
http::ClientResponse JsonResponse(int status, const Json& body);

}  // namespace orch::test
