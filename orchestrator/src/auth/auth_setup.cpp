#include "orchestrator/auth/auth_setup.hpp"

#include "common/log.hpp"
#include "orchestrator/auth/oidc_authenticator.hpp"

#include <openssl/rand.h>

namespace orch::auth {
namespace {

// Disabled mode stores no user tokens, but TokenKeeper still needs a cipher: use a throwaway key.
Result<TokenCipher> EphemeralCipher() {
    std::string key(32, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), 32) != 1) {
        return Error::Internal("no randomness available");
    }
    return TokenCipher::Create(std::move(key));
}

}  // namespace

Result<AuthServices> SetUpAuth(
    const ConfigTree& tree, http::Client& http, RefreshTokenStore& store, const Clock& clock
) {
    auto config = LoadAuthConfig(tree);
    if (!config) {
        return std::move(config).error();
    }
    AuthServices services;
    services.config = *config;
    const bool disabled = config->mode == AuthMode::kDisabled;
    auto cipher = disabled ? EphemeralCipher() : TokenCipher::Create(config->token_key, config->previous_token_keys);
    if (!cipher) {
        return std::move(cipher).error();
    }
    services.issuers = std::make_shared<IssuerDirectory>(std::move(*config), http, clock);
    services.token_keeper =
        std::make_unique<TokenKeeper>(services.issuers, store, std::move(*cipher), services.config.refresh_margin);
    if (disabled) {
        ORCH_LOG_WARN(
            "AUTHENTICATION IS DISABLED (auth: disabled): every request acts as the single local user, with every "
            "scope and admin rights. Never expose this instance.",
            {{"issuer", std::string(kLocalIssuer)}, {"subject", std::string(kLocalSubject)}}
        );
        services.authenticator = MakeDisabledAuthenticator();
        return services;
    }
    services.authenticator = std::make_unique<OidcAuthenticator>(services.issuers);
    for (const auto& issuer : services.config.issuers) {
        ORCH_LOG_INFO(
            "trusted issuer", {{"name", issuer.name}, {"issuer", issuer.issuer}, {"admin_group", issuer.admin_group}}
        );
    }
    return services;
}

}  // namespace orch::auth
