#pragma once

#include "common/metrics.hpp"
#include "orchestrator/auth/authenticator.hpp"

namespace orch::ops {

/// Counts bearer token verifications by outcome (orch_auth_token_verifications_total): "ok",
/// "missing" (no bearer token), "invalid" (refused), "unavailable" (the issuer could not be
/// asked), "error". Outcomes, never token contents, label the counter. Main wraps the OIDC
/// authenticator in it (not the one of `auth: disabled`, which verifies nothing).
class MeteredAuthenticator final : public auth::Authenticator {
   public:
    MeteredAuthenticator(auth::Authenticator& inner, metrics::Registry& registry);
    Result<auth::Principal> Authenticate(std::string_view authorization_header_value) override;

   private:
    auth::Authenticator& inner_;
    metrics::Family<metrics::Counter>& verifications_;
};

}  // namespace orch::ops
