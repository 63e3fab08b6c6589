#pragma once

#include "common/clock.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/client_registration.hpp"
#include "orchestrator/auth/iam_client_store.hpp"
#include "orchestrator/auth/token_cipher.hpp"

#include <string>
#include <string_view>

namespace orch::auth {

/// A client provisioned for a deployment's node. Holds its secret: never log it.
struct IssuedClient {
    std::string record_id;
    std::string client_id;
    std::string client_secret;
};

/// Per-deployment OAuth clients, never leaked silently: the record is written before the
/// registration request, completed after it, and removed only when the issuer confirmed the
/// deletion. The one window left is a crash between the issuer's answer and the record's
/// completion (RFC 7591 gives no way to find the client again without its management token):
/// such records stay in state kRegistering, named in the client_name the issuer shows, for the
/// operator. Registration access tokens are kept sealed (TokenCipher) and never logged.
class IamClientKeeper {
   public:
    IamClientKeeper(
        IamClientStore& store, ClientRegistration& registration, const TokenCipher& cipher, const Clock& clock
    );

    /// Records, registers at `registration_endpoint` with `bearer`, completes the record. If the
    /// record cannot be completed the client is deleted at once and the call fails.
    Result<IssuedClient> Provision(
        const std::string& deployment_id,
        const std::string& node_name,
        const std::string& issuer,
        const std::string& registration_endpoint,
        std::string_view bearer,
        ClientMetadata metadata
    );

    /// Deletes the deployment's clients at their issuers (on delete, and when an attempt failed).
    /// Fails (retry later) while an issuer cannot be reached; records that cannot be resolved by
    /// RFC 7592 (kRegistering after a crash, kUnconfirmed) are logged and left for the operator.
    Status ReleaseAll(const std::string& deployment_id);

   private:
    IamClientStore& store_;
    ClientRegistration& registration_;
    const TokenCipher& cipher_;
    const Clock& clock_;
};

/// The associated data binding a sealed registration access token to its record.
std::string IamClientTokenContext(std::string_view record_id);

}  // namespace orch::auth
