#pragma once

#include "common/result.hpp"
#include "orchestrator/auth/principal.hpp"

#include <cstddef>
#include <memory>
#include <string_view>

namespace orch::auth {

/// Contract texts (§1.4, §5): the 401 message without a token, and the prefix of every other 401.
inline constexpr std::string_view kFullAuthenticationRequired =
    "Full authentication is required to access this resource";
inline constexpr std::string_view kInvalidTokenPrefix = "Invalid token: ";

/// Turns the Authorization header of a request into a Principal.
///
/// Blocking (it may call the issuer on a cache miss): run it on a worker, never on an I/O thread.
/// Thread-safe. Failures: kUnauthenticated with kFullAuthenticationRequired (no bearer token) or
/// "Invalid token: <why>" (the token itself is never echoed nor logged); kUnavailable (503) when
/// the issuer cannot be reached to check a token we cannot check alone.
class Authenticator {
   public:
    virtual ~Authenticator() = default;
    virtual Result<Principal> Authenticate(std::string_view authorization_header_value) = 0;
};

/// The token of an `Authorization: Bearer <token>` value; the scheme is matched case-insensitively
/// (the dashboard sends "bearer"). No header or another scheme → kFullAuthenticationRequired;
/// a bearer value that is empty, not RFC 6750 token68 text, or over `max_token_bytes` → "Invalid token: ...".
Result<std::string_view> ExtractBearerToken(std::string_view header_value, std::size_t max_token_bytes);

/// `auth: disabled`: every request is LocalPrincipal(), whatever it carries.
std::unique_ptr<Authenticator> MakeDisabledAuthenticator();

}  // namespace orch::auth
