#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "connectors/connector.hpp"
#include "connectors/site_client_factory.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace orch::connectors {

/// A project-scoped Keystone v3 token and what came with it.
struct ScopedToken {
    std::string token;  ///< value for X-Auth-Token; never logged
    std::chrono::system_clock::time_point expires_at;
    std::string project_id;
    Json catalog = Json::array();  ///< token.catalog as Keystone returned it
};

struct KeystoneOptions {
    std::chrono::milliseconds call_timeout{15'000};
    /// A cached token is renewed when it expires within this margin, so that a call started with
    /// it does not fail half-way.
    std::chrono::seconds refresh_margin{300};
    std::size_t max_cached_tokens = 1024;
};

/// Keystone v3 authentication for OpenStack sites, with a bounded token cache.
///
/// The method follows SiteTarget::credentials: an application credential (id + secret; the token
/// is scoped by the credential itself), else the user's OIDC access token (bearer_token) through
/// federation when the site options name `identity_provider` (and `protocol`, default "openid"):
/// unscoped token from /v3/OS-FEDERATION/identity_providers/{idp}/protocols/{protocol}/auth, then
/// rescoped to SiteTarget::project (an id or a name; when empty, the only project the user has),
/// else username/password scoped to SiteTarget::project (domains from the options
/// `user_domain`/`project_domain`, default "Default"). SiteTarget::endpoint is the Keystone URL
/// (with or without /v3). Safe to call from several threads.
class KeystoneAuth {
   public:
    /// `clients` and `clock` (token expiry) must outlive it.
    KeystoneAuth(SiteClientFactory& clients, const Clock& clock, KeystoneOptions options = {});

    /// A token for `target`, from the cache while it is valid for longer than the margin.
    ConnectorResult<ScopedToken> Token(const SiteTarget& target);
    /// Forgets the cached token of `target` (a service answered 401 with it).
    void Invalidate(const SiteTarget& target);

    /// The URL of `service_type` in the token's catalog for `region` (any when empty) and
    /// `interface` ("public" by default); kTryAnotherSite when the site does not offer it.
    static ConnectorResult<std::string> Endpoint(
        const ScopedToken& token,
        const std::string& service_type,
        const std::string& region,
        const std::string& interface = "public"
    );

   private:
    ConnectorResult<ScopedToken> Issue(const SiteTarget& target);
    ConnectorResult<ScopedToken> Federated(http::Client& client, const SiteTarget& target, const std::string& base);
    ConnectorResult<ScopedToken> PostAuth(
        http::Client& client,
        const SiteTarget& target,
        const std::string& base,
        const Json& body,
        const std::string& what
    );
    void Store(const std::string& key, const ScopedToken& token);

    SiteClientFactory& clients_;
    const Clock& clock_;
    KeystoneOptions options_;
    std::mutex mutex_;
    std::map<std::string, ScopedToken> cache_;  ///< by CacheKey(target)
};

}  // namespace orch::connectors
