#include "orchestrator/auth/iam_client_keeper.hpp"

#include "common/log.hpp"
#include "common/uuid.hpp"

#include <utility>

namespace orch::auth {

std::string IamClientTokenContext(std::string_view record_id) {
    return "iam-client:" + std::string(record_id);
}

IamClientKeeper::IamClientKeeper(
    IamClientStore& store, ClientRegistration& registration, const TokenCipher& cipher, const Clock& clock
)
    : store_(store), registration_(registration), cipher_(cipher), clock_(clock) {}

Result<IssuedClient> IamClientKeeper::Provision(
    const std::string& deployment_id,
    const std::string& node_name,
    const std::string& issuer,
    const std::string& registration_endpoint,
    std::string_view bearer,
    ClientMetadata metadata
) {
    IamClientRecord record;
    record.id = RandomUuid();
    record.deployment_id = deployment_id;
    record.node_name = node_name;
    record.issuer = issuer;
    record.created_at = clock_.now();
    // Record first: a client we registered must never exist without a trace here.
    if (auto reserved = store_.Reserve(record); !reserved) {
        return std::move(reserved).error();
    }
    // Our record id in the name the issuer shows, so an operator can match a leaked client.
    metadata.client_name = (metadata.client_name.empty() ? "deployment " + deployment_id : metadata.client_name) +
                           " (orchestrator " + record.id + ")";
    auto client = registration_.Register(registration_endpoint, bearer, metadata);
    if (!client) {
        // Nothing was registered (or the issuer's answer was unusable: the record stays then).
        if (client.error().code != ErrorCode::kUnavailable) {
            (void)store_.Forget(record.id);
        }
        return std::move(client).error();
    }
    auto sealed = cipher_.Seal(client->registration_access_token, IamClientTokenContext(record.id));
    Status completed =
        sealed ? store_.MarkRegistered(record.id, client->client_id, client->registration_client_uri, *sealed)
               : Status(std::move(sealed).error());
    if (!completed) {
        // Unrecorded means unmanaged later: undo the registration now rather than leak it.
        auto undone = registration_.Delete(*client);
        if (undone && *undone == ClientDeletion::kDeleted) {
            (void)store_.Forget(record.id);
        }
        return std::move(completed).error();
    }
    return IssuedClient{record.id, client->client_id, client->client_secret};
}

Status IamClientKeeper::ReleaseAll(const std::string& deployment_id) {
    auto records = store_.ForDeployment(deployment_id);
    if (!records) {
        return std::move(records).error();
    }
    for (const auto& record : *records) {
        if (record.state != IamClientState::kRegistered) {
            ORCH_LOG_WARN(
                "an IAM client record cannot be resolved through RFC 7592; check the issuer",
                {{"deployment", deployment_id},
                 {"record", record.id},
                 {"issuer", record.issuer},
                 {"client_id", record.client_id},
                 {"state", std::string(IamClientStateName(record.state))}}
            );
            continue;
        }
        auto token = cipher_.Open(record.sealed_registration_token, IamClientTokenContext(record.id));
        if (!token) {
            return std::move(token).error();
        }
        auto deleted = registration_.Delete({record.client_id, "", record.registration_client_uri, std::move(*token)});
        if (!deleted) {
            return std::move(deleted).error();
        }
        const Status next =
            *deleted == ClientDeletion::kDeleted ? store_.Forget(record.id) : store_.MarkUnconfirmed(record.id);
        if (!next) {
            return next;
        }
    }
    return Ok();
}

}  // namespace orch::auth
