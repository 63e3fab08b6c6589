#pragma once

#include "common/config.hpp"
#include "orchestrator/auth/token_keeper.hpp"
#include "orchestrator/workflow/deployment_steps.hpp"

#include <map>
#include <string>

namespace orch::app {

/// Site credentials from the `credentials:` section (keyed by CMDB service id, else site id):
/// username, password, token, application_credential_id/_secret, client_cert_file,
/// client_key_file, ca_file. For sites whose catalogue entry says `iam_enabled`, the owner's
/// current IAM access token (kept fresh by the TokenKeeper) is the bearer token instead.
class ConfigCredentialSource final : public workflow::CredentialSource {
   public:
    static Result<ConfigCredentialSource> FromConfig(const ConfigTree& tree, auth::TokenKeeper* keeper);

    Result<connectors::Credentials> For(const connectors::SiteTarget& target, const std::optional<domain::Owner>& owner)
        override;
    Result<std::string> OwnerAccessToken(const std::optional<domain::Owner>& owner) override;

   private:
    std::map<std::string, connectors::Credentials> by_key_;
    auth::TokenKeeper* keeper_ = nullptr;
};

}  // namespace orch::app
