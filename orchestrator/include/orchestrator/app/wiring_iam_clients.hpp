#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "orchestrator/app/iam_client_config.hpp"
#include "orchestrator/auth/auth_setup.hpp"
#include "orchestrator/auth/client_registration.hpp"
#include "orchestrator/auth/iam_client_keeper.hpp"
#include "orchestrator/auth/iam_client_store.hpp"
#include "orchestrator/workflow/iam_client_sweep.hpp"
#include "orchestrator/workflow/iam_clients.hpp"

#include <memory>
#include <set>
#include <string>

namespace orch::app {

/// The workflow's IamClientRegistry over auth's IamClientKeeper: the issuer is the owner's (a
/// node may name only that one, since the owner's token registers), allowed by
/// iam_clients.issuers, and its registration endpoint comes from its discovery document.
class KeeperIamClientRegistry final : public workflow::IamClientRegistry {
   public:
    /// Every argument must outlive this.
    KeeperIamClientRegistry(
        const IamClientConfig& config,
        auth::IssuerDirectory& issuers,
        auth::IamClientStore& store,
        auth::IamClientKeeper& keeper
    );

    Result<workflow::IamClientGrant> Register(
        const std::string& deployment_id,
        const domain::Owner& owner,
        std::string_view access_token,
        const workflow::IamClientRequest& request
    ) override;
    Status ReleaseAll(const std::string& deployment_id) override;
    Result<std::vector<std::string>> DeploymentsWithClients(Clock::WallTime before, int limit) override;

   private:
    Result<std::string> RegistrationEndpoint(const std::string& issuer);

    std::set<std::string> allowed_;
    std::string initial_access_token_;
    auth::IssuerDirectory& issuers_;
    auth::IamClientStore& store_;
    auth::IamClientKeeper& keeper_;
};

/// IAM clients as configured (all null when iam_clients.enabled is false).
struct IamClientWiring {
    std::unique_ptr<auth::ClientRegistration> registration;
    std::unique_ptr<auth::TokenCipher> cipher;
    std::unique_ptr<auth::IamClientKeeper> keeper;
    std::unique_ptr<KeeperIamClientRegistry> registry;
    std::unique_ptr<workflow::IamClientSweeper> sweeper;
};

/// Fails when enabled without OIDC (clients are registered for a token's owner) or naming an
/// issuer that auth.issuers does not trust. `http` is the egress-policed client: the issuer's
/// registration endpoint and the management URIs it returns are called through it. Everything
/// passed must outlive the result.
Result<IamClientWiring> MakeIamClients(
    const IamClientConfig& config,
    const auth::AuthServices& auth,
    http::Client& http,
    auth::IamClientStore& store,
    workflow::WorkflowStore& deployments,
    const Clock& clock
);

}  // namespace orch::app
