#include "orchestrator/app/wiring_auth.hpp"

namespace orch::app {

AuthenticatorWiring MakeAuthenticator(const auth::AuthServices& auth, metrics::Registry& registry) {
    AuthenticatorWiring wiring;
    if (auth.config.mode == auth::AuthMode::kOidc) {
        wiring.metered = std::make_unique<ops::MeteredAuthenticator>(*auth.authenticator, registry);
        wiring.authenticator = wiring.metered.get();
    } else {
        wiring.authenticator = auth.authenticator.get();
    }
    return wiring;
}

}  // namespace orch::app
