#pragma once

#include "common/http_client.hpp"
#include "common/result.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace orch::auth {

/// What the orchestrator asks an issuer to register for one deployment (RFC 7591 §2 metadata).
struct ClientMetadata {
    std::string client_name;  ///< names the deployment, so an operator can find a leaked one
    std::vector<std::string> redirect_uris;
    std::vector<std::string> grant_types;
    std::string scope;                  ///< space-separated
    std::vector<std::string> contacts;  ///< the owner's e-mail when known
};

/// A client registered at an issuer. Holds secrets (client secret, registration access token):
/// never log it; only `client_id` and `registration_client_uri` may appear in logs.
struct RegisteredClient {
    std::string client_id;
    std::string client_secret;
    std::string registration_client_uri;
    std::string registration_access_token;
};

/// What a delete established. RFC 7592 §2.3 has the issuer answer 401 both for a client it no longer
/// knows and for a registration access token it does not accept (and revoke that token): a 401
/// cannot prove the client is gone, so it is kUnconfirmed, which callers keep on record (logged
/// with the client id) instead of forgetting the client.
enum class ClientDeletion {
    kDeleted,      ///< 200/204, or 404: the issuer says the client does not exist
    kUnconfirmed,  ///< 401: already deleted (a retry after a crash) or the token was refused
};

/// RFC 7591 registration and RFC 7592 deletion of per-deployment OAuth clients, through
/// http::Client. Every call is bounded in time and response size; endpoints come from the
/// discovery document of a configured issuer (never from a template), and the management URI the
/// issuer returns must be on the registration endpoint's origin, so the registration access token
/// is only ever sent back to the issuer that minted it. Error texts carry no secret.
class ClientRegistration {
   public:
    ClientRegistration(http::Client& http, std::chrono::milliseconds timeout);

    /// POSTs `metadata` to `registration_endpoint` with `bearer` (the user's access token, or the
    /// operator's initial access token) as the Authorization.
    Result<RegisteredClient> Register(
        const std::string& registration_endpoint, std::string_view bearer, const ClientMetadata& metadata
    );

    /// DELETEs the client with its registration access token; transport and server errors are
    /// errors (retry later), and a 401 is kUnconfirmed (see ClientDeletion).
    Result<ClientDeletion> Delete(const RegisteredClient& client);

   private:
    http::Client& http_;
    std::chrono::milliseconds timeout_;
};

/// True when `a` and `b` are URLs with the same scheme, host and port.
bool SameOrigin(const std::string& a, const std::string& b);

}  // namespace orch::auth
