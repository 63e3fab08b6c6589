#include "orchestrator/ops/metered_authenticator.hpp"

namespace orch::ops {

MeteredAuthenticator::MeteredAuthenticator(auth::Authenticator& inner, metrics::Registry& registry)
    : inner_(inner),
      verifications_(registry.AddCounter(
          "orch_auth_token_verifications_total", "Bearer token verifications, by outcome", {"outcome"}
      )) {}

Result<auth::Principal> MeteredAuthenticator::Authenticate(std::string_view authorization_header_value) {
    auto principal = inner_.Authenticate(authorization_header_value);
    const char* outcome = "ok";
    if (!principal) {
        // A request without a bearer token is answered with the token-missing challenge.
        const auto& error = principal.error();
        outcome = error.details.challenge == AuthChallenge::kTokenMissing ? "missing"
                  : error.code == ErrorCode::kUnauthenticated             ? "invalid"
                  : error.code == ErrorCode::kUnavailable                 ? "unavailable"
                                                                          : "error";
    }
    verifications_.With({outcome}).Inc();
    return principal;
}

}  // namespace orch::ops
