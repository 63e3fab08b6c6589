#pragma once

// Per-deployment OAuth clients for tosca.nodes.indigo.iam.client nodes (issue 20): what the
// workflow asks for, and the interface it asks through (app implements it over
// auth::IamClientKeeper, which keeps the durable record; the workflow does not link auth).
#include "common/clock.hpp"
#include "common/result.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "tosca/deployment_spec.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace orch::workflow {

inline constexpr std::string_view kIamClientType = "tosca.nodes.indigo.iam.client";

/// One client a template asks for: one per iam.client node.
struct IamClientRequest {
    std::string node_name;
    std::string issuer;  ///< the node's `issuer`; empty: the deployment owner's
    std::string scopes;  ///< space-separated, as the node's `scopes`
    std::vector<std::string> redirect_uris;
};

/// A registered client as the deployed service gets it. Holds the secret: never log it.
struct IamClientGrant {
    std::string node_name;
    std::string issuer;
    std::string client_id;
    std::string client_secret;
};

/// Registers and deletes the deployments' clients at their issuers. Errors: kInvalidArgument
/// for a request no retry can serve (an issuer not allowed, one offering no registration), a
/// message the user may read; anything else is retried.
class IamClientRegistry {
   public:
    virtual ~IamClientRegistry() = default;
    /// Registers one client for `deployment_id`'s node, recorded before the issuer is called.
    virtual Result<IamClientGrant> Register(
        const std::string& deployment_id,
        const domain::Owner& owner,
        std::string_view access_token,
        const IamClientRequest& request
    ) = 0;
    /// Deletes every recorded client of the deployment at its issuer; a retry is harmless.
    virtual Status ReleaseAll(const std::string& deployment_id) = 0;
    /// Deployments holding a client record created before `before`, oldest first, at most
    /// `limit` (the sweep's work list).
    virtual Result<std::vector<std::string>> DeploymentsWithClients(Clock::WallTime before, int limit) = 0;
};

/// The clients `spec` asks for, in template order (none for a template without iam.client nodes).
std::vector<IamClientRequest> IamClientRequests(const tosca::DeploymentSpec& spec);

/// `template_text` with each granted node's `client_id`, `client_secret`, `issuer` and `owner`
/// properties set, so the engine resolves get_property on them for the other nodes and the site
/// receives them. The stored template is never changed (GET .../template shows no secret).
/// kInvalidArgument when the text cannot be re-read.
Result<std::string> WithIamClients(
    const std::string& template_text, const std::vector<IamClientGrant>& grants, std::string_view owner_subject
);

}  // namespace orch::workflow
