#pragma once

#include "common/clock.hpp"
#include "common/config.hpp"
#include "common/http_client.hpp"
#include "common/result.hpp"
#include "orchestrator/auth/auth_config.hpp"
#include "orchestrator/auth/authenticator.hpp"
#include "orchestrator/auth/issuer_directory.hpp"
#include "orchestrator/auth/refresh_token_store.hpp"
#include "orchestrator/auth/token_keeper.hpp"

#include <memory>

namespace orch::auth {

/// Everything the server needs from this module, built from the `auth:` section.
struct AuthServices {
    AuthConfig config;
    std::shared_ptr<IssuerDirectory> issuers;  ///< empty directory when disabled
    std::unique_ptr<Authenticator> authenticator;
    std::unique_ptr<TokenKeeper> token_keeper;  ///< always set; a no-op for the local user
};

/// Reads and validates the configuration (errors name the key), and wires the authenticator and the
/// token keeper. `http`, `store` and `clock` must outlive the result. With auth disabled it logs a loud
/// warning: every request then acts as the single local user.
Result<AuthServices> SetUpAuth(
    const ConfigTree& tree, http::Client& http, RefreshTokenStore& store, const Clock& clock
);

}  // namespace orch::auth
