#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/auth/issuer_client.hpp"
#include "orchestrator/auth/issuer_keys.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace orch::auth {

/// Everything we keep per trusted issuer: its configuration, its network client and its keys.
struct IssuerContext {
    IssuerContext(const IssuerConfig& issuer_config, const AuthConfig& limits, http::Client& http, const Clock& clock);

    const IssuerConfig& config;
    IssuerClient client;
    IssuerKeys keys;
};

/// The allow-list of issuers, shared by the authenticator and the token keeper. Lookup is by exact
/// `iss` string and happens before any network call. Owns its copy of the configuration. Every
/// cache of the auth module (discovery, JWKS, introspection, userinfo, user tokens) and every
/// token-time check reads `clock`, which must outlive the directory.
class IssuerDirectory {
   public:
    IssuerDirectory(AuthConfig config, http::Client& http, const Clock& clock);

    const AuthConfig& config() const { return config_; }
    const Clock& clock() const { return clock_; }
    /// nullptr when `iss` is not a trusted issuer.
    IssuerContext* Find(std::string_view iss) const;
    const std::vector<std::unique_ptr<IssuerContext>>& issuers() const { return issuers_; }

   private:
    const AuthConfig config_;
    const Clock& clock_;
    std::vector<std::unique_ptr<IssuerContext>> issuers_;
};

}  // namespace orch::auth
