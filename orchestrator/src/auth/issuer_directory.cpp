#include "orchestrator/auth/issuer_directory.hpp"

namespace orch::auth {
namespace {

IssuerKeys::Options KeyOptions(const AuthConfig& limits) {
    IssuerKeys::Options options;
    options.min_refresh_interval = limits.jwks_min_refresh_interval;
    options.max_age = limits.jwks_max_age;
    // A miss waits at most for one discovery plus one JWKS fetch.
    options.wait_timeout = 2 * limits.http_timeout + std::chrono::seconds(1);
    return options;
}

}  // namespace

IssuerContext::IssuerContext(
    const IssuerConfig& issuer_config, const AuthConfig& limits, http::Client& http, const Clock& clock
)
    : config(issuer_config),
      client(issuer_config, limits, http, clock),
      keys(
          issuer_config.issuer, [this] { return client.FetchKeys(); }, KeyOptions(limits), clock
      ) {}

IssuerDirectory::IssuerDirectory(AuthConfig config, http::Client& http, const Clock& clock)
    : config_(std::move(config)), clock_(clock) {
    for (const auto& issuer : config_.issuers) {
        issuers_.push_back(std::make_unique<IssuerContext>(issuer, config_, http, clock));
    }
}

IssuerContext* IssuerDirectory::Find(std::string_view iss) const {
    for (const auto& context : issuers_) {
        if (context->config.issuer == iss) {
            return context.get();
        }
    }
    return nullptr;
}

}  // namespace orch::auth
