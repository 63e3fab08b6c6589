#include "orchestrator/app/wiring_connectors.hpp"

#include "connectors/chronos_connector.hpp"
#include "connectors/contextualising_connector.hpp"
#include "connectors/kubernetes_connector.hpp"
#include "connectors/marathon_connector.hpp"
#include "connectors/openstack_connector.hpp"
#include "connectors/slurm_connector.hpp"

namespace orch::app {

ConnectorWiring MakeConnectors(
    http::Client& http,
    const connectors::ImOptions& im,
    const connectors::OpenStackOptions& openstack,
    const ContextualisationConfig& contextualisation,
    const Clock& clock
) {
    ConnectorWiring wiring;
    wiring.site_clients = std::make_unique<connectors::TlsClientFactory>(http, http::ClientOptions{});
    auto& site_clients = *wiring.site_clients;
    wiring.im = std::make_unique<connectors::ImConnector>(site_clients, im);
    wiring.registry = std::make_unique<connectors::OwningConnectorRegistry>();
    auto& registry = *wiring.registry;
    registry.Register(std::make_unique<connectors::MarathonConnector>(site_clients));
    registry.Register(std::make_unique<connectors::ChronosConnector>(site_clients));
    registry.Register(std::make_unique<connectors::KubernetesConnector>(site_clients));
    registry.Register(std::make_unique<connectors::SlurmConnector>(site_clients));
    wiring.contextualiser = std::make_unique<connectors::AnsibleContextualiser>(contextualisation.ansible);
    wiring.native = std::make_unique<connectors::OpenStackConnector>(site_clients, clock, openstack);
    if (contextualisation.enabled) {
        wiring.native = std::make_unique<connectors::ContextualisingConnector>(
            std::move(wiring.native), *wiring.contextualiser, contextualisation.connector
        );
    }
    registry.Register(std::make_unique<connectors::VmRouter>(*wiring.native, *wiring.im));
    return wiring;
}

}  // namespace orch::app
