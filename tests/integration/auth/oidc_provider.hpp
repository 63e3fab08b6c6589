#pragma once

#include "common/http_client.hpp"
#include "common/json.hpp"
#include "common/result.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace orch::test {

/// A running test OIDC provider (scripts/oidc, npm oidc-provider configured like INDIGO IAM).
/// The CTest fixture `oidc` starts "alpha" (full IAM profile: scope and groups in tokens), "beta"
/// (IAM's default profile: neither, so introspection and userinfo are needed) and "gamma"
/// (wlcg.groups). Run outside ctest, the helper starts them itself and stops them at exit.
class OidcProvider {
   public:
    /// The fixture provider `name` ("alpha", "beta", "gamma").
    static OidcProvider& Shared(const std::string& name);

    /// A private provider for tests that change it (key rotation); stopped by PID on destruction.
    /// `access_token_ttl` > 0 makes every access token it mints (exchange, refresh) that short.
    static std::unique_ptr<OidcProvider> StartOwn(
        const std::string& name, const std::string& profile, int access_token_ttl = 0
    );
    ~OidcProvider();
    OidcProvider(const OidcProvider&) = delete;
    OidcProvider& operator=(const OidcProvider&) = delete;

    const std::string& issuer() const { return issuer_; }

    struct Tokens {
        std::string access_token;
        std::string refresh_token;
        Json claims;  ///< the access token's payload (decoded, unverified; for assertions)
    };
    /// A user token from the test password grant. `client` is "dashboard" (default) or "orchestrator".
    Tokens UserToken(
        const std::string& username,
        const std::string& scope = "openid profile offline_access",
        const std::string& client = "dashboard",
        const std::string& extra_form = ""
    );
    /// Signs exactly `payload` with the provider's current RSA ("rsa") or EC ("ec") key.
    std::string Sign(const Json& payload, const Json& header = Json::object(), const std::string& key = "rsa");
    /// Publishes a new RSA signing key and signs with it (optionally dropping the old ones); returns its kid.
    std::string RotateKey(bool drop_old);
    Json Jwks();
    /// username → {"sub", "groups"}.
    Json Users();
    /// The dynamically registered (RFC 7591) clients still alive: [{"client_id", "client_name"}].
    Json RegisteredClients();
    /// The initial access token the provider requires for RFC 7591 registration.
    static std::string InitialAccessToken() { return "test-initial-access-token"; }

   private:
    OidcProvider(std::string dir, std::string issuer, bool owned);
    Json Call(
        const std::string& method,
        const std::string& path,
        const std::string& body,
        const std::string& content_type,
        const std::string& basic = ""
    );

    std::string dir_;
    std::string issuer_;
    bool owned_;
    std::unique_ptr<http::Client> http_;
};

/// YAML of an `auth:` section trusting the fixture providers `names` (client orchestrator), with
/// `issuer_extra` lines added to every issuer and `extra` lines to the section.
std::string AuthYaml(
    const std::vector<std::string>& names, const std::string& issuer_extra = "", const std::string& extra = ""
);

/// Decodes a JWT's payload without verifying it (tests only).
Json UnverifiedPayload(const std::string& token);

/// Wraps a client and counts requests whose URL ends with a suffix.
class CountingClient final : public http::Client {
   public:
    explicit CountingClient(http::Client& inner) : inner_(inner) {}
    Result<http::ClientResponse> Send(const http::ClientRequest& request) override;
    int Count(const std::string& url_suffix) const;

   private:
    http::Client& inner_;
    mutable std::mutex mutex_;
    std::vector<std::string> urls_;
};

}  // namespace orch::test
