#include "connectors/site_client_factory.hpp"

namespace orch::connectors {
namespace {

// http::ClientOptions gains client-certificate fields in common (requested from its owner);
// until then this compiles to "not supported" instead of breaking the build.
template <typename Options>
bool SetClientCertificate(Options& options, const std::string& cert, const std::string& key) {
    if constexpr (requires {
                      options.client_cert_file = cert;
                      options.client_key_file = key;
                  }) {
        options.client_cert_file = cert;
        options.client_key_file = key;
        return true;
    } else {
        (void)options;
        (void)cert;
        (void)key;
        return false;
    }
}

}  // namespace

TlsClientFactory::TlsClientFactory(http::Client& shared, http::ClientOptions base, std::size_t max_clients)
    : shared_(&shared, [](http::Client*) {}), base_(std::move(base)), max_clients_(max_clients) {}

bool TlsClientFactory::SupportsClientCertificates() {
    http::ClientOptions probe;
    return SetClientCertificate(probe, "x", "y");
}

ConnectorResult<std::shared_ptr<http::Client>> TlsClientFactory::ClientFor(const SiteTarget& target) {
    const Credentials& c = target.credentials;
    const bool wants_cert = !c.client_cert_file.empty() || !c.client_key_file.empty();
    if (c.ca_file.empty() && !wants_cert) {
        return shared_;
    }
    if (wants_cert && (c.client_cert_file.empty() || c.client_key_file.empty())) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "site " + target.site_id + ": a client certificate needs both the certificate and the key file"};
    }
    const std::string key = c.ca_file + "\n" + c.client_cert_file + "\n" + c.client_key_file;
    const std::lock_guard lock(mutex_);
    if (const auto it = clients_.find(key); it != clients_.end()) {
        return it->second;
    }
    http::ClientOptions options = base_;
    options.ca_file = c.ca_file;
    if (wants_cert && !SetClientCertificate(options, c.client_cert_file, c.client_key_file)) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "site " + target.site_id +
                " needs client-certificate authentication, which this build's HTTP client cannot do yet"};
    }
    auto made = http::MakeClient(options);
    if (!made) {
        return Failure{FailureKind::kTryAnotherSite, "site " + target.site_id + ": " + made.error().message};
    }
    if (clients_.size() >= max_clients_) {
        clients_.erase(clients_.begin());  // a crude bound; sites with private CAs are few
    }
    std::shared_ptr<http::Client> client = std::move(*made);
    clients_[key] = client;
    return client;
}

}  // namespace orch::connectors
