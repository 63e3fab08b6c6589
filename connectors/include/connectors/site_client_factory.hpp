#pragma once

#include "common/http_client.hpp"
#include "connectors/connector.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace orch::connectors {

/// Gives connectors the HTTP client to reach one site. Sites whose certificates are publicly
/// trusted and that take tokens or passwords share one client; a site with its own CA or a
/// client certificate (Kubernetes) needs a client configured for it.
class SiteClientFactory {
   public:
    virtual ~SiteClientFactory() = default;
    /// The client for `target` (shared ownership, so a cache eviction cannot pull it from under
    /// a running call), or why the site cannot be reached with this build/configuration.
    virtual ConnectorResult<std::shared_ptr<http::Client>> ClientFor(const SiteTarget& target) = 0;
};

/// Every site through one client (tests pass a fake; plain sites need nothing more).
class SharedClientFactory final : public SiteClientFactory {
   public:
    /// `client` must outlive the factory.
    explicit SharedClientFactory(http::Client& client) : client_(&client, [](http::Client*) {}) {}
    ConnectorResult<std::shared_ptr<http::Client>> ClientFor(const SiteTarget&) override { return client_; }

   private:
    std::shared_ptr<http::Client> client_;
};

/// The shared client for ordinary sites, and one cached client per (CA file, client certificate,
/// key) for the others, built with http::MakeClient. At most `max_clients` are kept.
class TlsClientFactory final : public SiteClientFactory {
   public:
    /// `shared` must outlive the factory.
    TlsClientFactory(http::Client& shared, http::ClientOptions base, std::size_t max_clients = 64);
    ConnectorResult<std::shared_ptr<http::Client>> ClientFor(const SiteTarget& target) override;

    /// Whether this build's http::ClientOptions can carry a client certificate.
    static bool SupportsClientCertificates();

   private:
    std::shared_ptr<http::Client> shared_;
    http::ClientOptions base_;
    std::size_t max_clients_;
    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<http::Client>> clients_;
};

}  // namespace orch::connectors
