#include "orchestrator/app/wiring_iam_clients.hpp"

#include "common/log.hpp"

#include <algorithm>

namespace orch::app {
namespace {

// RFC 7591 metadata for a node's client. An authorization-code client when the node names where
// to come back to, else one for the service's own calls (client credentials).
auth::ClientMetadata MetadataFor(const std::string& deployment_id, const workflow::IamClientRequest& request) {
    auth::ClientMetadata m;
    m.client_name = "deployment " + deployment_id + " node " + request.node_name;
    m.redirect_uris = request.redirect_uris;
    m.grant_types = request.redirect_uris.empty() ? std::vector<std::string>{"client_credentials"}
                                                  : std::vector<std::string>{"authorization_code", "refresh_token"};
    m.scope = request.scopes;
    return m;
}

}  // namespace

KeeperIamClientRegistry::KeeperIamClientRegistry(
    const IamClientConfig& config,
    auth::IssuerDirectory& issuers,
    auth::IamClientStore& store,
    auth::IamClientKeeper& keeper
)
    : allowed_(config.issuers.begin(), config.issuers.end()),
      initial_access_token_(config.initial_access_token),
      issuers_(issuers),
      store_(store),
      keeper_(keeper) {}

Result<std::string> KeeperIamClientRegistry::RegistrationEndpoint(const std::string& issuer) {
    auth::IssuerContext* context = issuers_.Find(issuer);
    if (context == nullptr || (!allowed_.empty() && allowed_.count(issuer) == 0)) {
        return Error::InvalidArgument("IAM clients are not registered at issuer " + issuer + " on this orchestrator");
    }
    auto endpoints = context->client.Endpoints();
    if (!endpoints) {
        ORCH_LOG_WARN(
            "iam clients: issuer discovery failed", {{"issuer", issuer}, {"error", endpoints.error().message}}
        );
        return Error::Unavailable("the issuer's discovery document cannot be read now");
    }
    if (endpoints->registration_endpoint.empty()) {
        return Error::InvalidArgument("issuer " + issuer + " offers no dynamic client registration");
    }
    return endpoints->registration_endpoint;
}

Result<workflow::IamClientGrant> KeeperIamClientRegistry::Register(
    const std::string& deployment_id,
    const domain::Owner& owner,
    std::string_view access_token,
    const workflow::IamClientRequest& request
) {
    // The owner's token registers, so the client lives at the owner's issuer.
    if (!request.issuer.empty() && request.issuer != owner.issuer) {
        return Error::InvalidArgument(
            "IAM client node '" + request.node_name + "': its issuer must be the deployment owner's (" + owner.issuer +
            ")"
        );
    }
    ORCH_ASSIGN_OR_RETURN(const std::string endpoint, RegistrationEndpoint(owner.issuer));
    const std::string_view bearer = initial_access_token_.empty() ? access_token : initial_access_token_;
    auto issued = keeper_.Provision(
        deployment_id, request.node_name, owner.issuer, endpoint, bearer, MetadataFor(deployment_id, request)
    );
    if (!issued) {
        // The issuer's or the database's text stays in the log; the user reads a fixed message.
        ORCH_LOG_WARN(
            "iam clients: registration failed",
            {{"deployment_id", deployment_id}, {"node", request.node_name}, {"error", issued.error().message}}
        );
        if (issued.error().code == ErrorCode::kInvalidArgument || issued.error().code == ErrorCode::kPermissionDenied) {
            return Error::InvalidArgument(
                "the issuer refused to register a client for node '" + request.node_name + "'"
            );
        }
        return Error::Unavailable("the client for node '" + request.node_name + "' cannot be registered now");
    }
    ORCH_LOG_INFO(
        "iam clients: registered",
        {{"deployment_id", deployment_id}, {"node", request.node_name}, {"client_id", issued->client_id}}
    );
    return workflow::IamClientGrant{request.node_name, owner.issuer, issued->client_id, issued->client_secret};
}

Status KeeperIamClientRegistry::ReleaseAll(const std::string& deployment_id) {
    return keeper_.ReleaseAll(deployment_id);
}

Result<std::vector<std::string>> KeeperIamClientRegistry::DeploymentsWithClients(Clock::WallTime before, int limit) {
    ORCH_ASSIGN_OR_RETURN(const auto records, store_.CreatedBefore(before, limit));
    std::vector<std::string> out;
    for (const auto& record : records) {
        if (std::find(out.begin(), out.end(), record.deployment_id) == out.end()) {
            out.push_back(record.deployment_id);
        }
    }
    return out;
}

Result<IamClientWiring> MakeIamClients(
    const IamClientConfig& config,
    const auth::AuthServices& auth,
    http::Client& http,
    auth::IamClientStore& store,
    workflow::WorkflowStore& deployments,
    const Clock& clock
) {
    IamClientWiring w;
    if (!config.enabled) {
        return w;
    }
    if (auth.config.mode == auth::AuthMode::kDisabled) {
        return Error::InvalidArgument("config key 'iam_clients.enabled': needs auth (clients belong to a token's owner)"
        );
    }
    for (const auto& issuer : config.issuers) {
        if (auth.issuers->Find(issuer) == nullptr) {
            return Error::InvalidArgument("config key 'iam_clients.issuers': " + issuer + " is not in auth.issuers");
        }
    }
    // Registration access tokens are sealed with the auth token key, as refresh tokens are.
    ORCH_ASSIGN_OR_RETURN(
        auto cipher, auth::TokenCipher::Create(auth.config.token_key, auth.config.previous_token_keys)
    );
    w.cipher = std::make_unique<auth::TokenCipher>(std::move(cipher));
    w.registration = std::make_unique<auth::ClientRegistration>(http, config.timeout);
    w.keeper = std::make_unique<auth::IamClientKeeper>(store, *w.registration, *w.cipher, clock);
    w.registry = std::make_unique<KeeperIamClientRegistry>(config, *auth.issuers, store, *w.keeper);
    w.sweeper = std::make_unique<workflow::IamClientSweeper>(*w.registry, deployments, clock, config.sweep);
    return w;
}

}  // namespace orch::app
