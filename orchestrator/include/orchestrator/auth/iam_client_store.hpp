#pragma once

// The durable record of per-deployment OAuth clients (migration 0017), written before each
// registration so that no client exists at an issuer without a trace here (issue 20).
#include "common/clock.hpp"
#include "common/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::auth {

enum class IamClientState {
    kRegistering,  ///< recorded, registration request sent or about to be: outcome unknown
    kRegistered,   ///< the issuer answered; client id and management token recorded
    kUnconfirmed,  ///< a delete was answered 401 (RFC 7592): maybe gone, maybe not; for the operator
};

struct IamClientRecord {
    std::string id;  ///< our uuid, also in the client_name, so an operator can match a leaked client
    std::string deployment_id;
    std::string node_name;
    std::string issuer;
    IamClientState state = IamClientState::kRegistering;
    std::string client_id;
    std::string registration_client_uri;
    std::string sealed_registration_token;  ///< TokenCipher output, never the token in clear
    Clock::WallTime created_at{};

    bool operator==(const IamClientRecord&) const = default;
};

class IamClientStore {
   public:
    virtual ~IamClientStore() = default;
    /// Records a client about to be registered (state kRegistering); kConflict if `id` exists.
    virtual Status Reserve(const IamClientRecord& record) = 0;
    /// The issuer's answer; kNotFound when there is no such record.
    virtual Status MarkRegistered(
        const std::string& id,
        const std::string& client_id,
        const std::string& registration_client_uri,
        const std::string& sealed_registration_token
    ) = 0;
    virtual Status MarkUnconfirmed(const std::string& id) = 0;
    /// The issuer confirmed the deletion: the record goes. Forgetting an absent record is Ok.
    virtual Status Forget(const std::string& id) = 0;
    /// The deployment's records, oldest first (a delete or a failed attempt cleans them all).
    virtual Result<std::vector<IamClientRecord>> ForDeployment(const std::string& deployment_id) = 0;
    /// Records created before `before`, oldest first, at most `limit`: a reconciling sweep's work
    /// (clients of deployments that are gone, or registrations a crash interrupted).
    virtual Result<std::vector<IamClientRecord>> CreatedBefore(Clock::WallTime before, int limit) = 0;
};

std::string_view IamClientStateName(IamClientState state);
std::optional<IamClientState> ParseIamClientState(std::string_view name);

}  // namespace orch::auth
