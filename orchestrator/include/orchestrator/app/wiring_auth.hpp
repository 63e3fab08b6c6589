#pragma once

#include "common/metrics.hpp"
#include "orchestrator/auth/auth_setup.hpp"
#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/ops/metered_authenticator.hpp"

#include <memory>

namespace orch::app {

/// The authenticator the API calls, with what it needs kept alive.
struct AuthenticatorWiring {
    std::unique_ptr<ops::MeteredAuthenticator> metered;  ///< only with OIDC
    auth::Authenticator* authenticator = nullptr;        ///< `metered`, or the configured one
};

/// With OIDC, the configured authenticator behind one that counts verifications for GET /metrics;
/// `auth: disabled` verifies no token, so there is nothing to count and the configured one is
/// used as is. `auth` and `registry` must outlive the result.
AuthenticatorWiring MakeAuthenticator(const auth::AuthServices& auth, metrics::Registry& registry);

}  // namespace orch::app
