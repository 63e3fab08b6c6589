#pragma once

#include "common/clock.hpp"
#include "common/http_client.hpp"
#include "connectors/ansible_contextualiser.hpp"
#include "connectors/connector.hpp"
#include "connectors/im_connector.hpp"
#include "connectors/openstack_connector.hpp"
#include "connectors/registry.hpp"
#include "connectors/site_client_factory.hpp"
#include "orchestrator/app/contextualisation_config.hpp"

#include <memory>

namespace orch::app {

/// The connector registry with what its connectors refer to, each at an address that does not
/// move with the struct (the VM router refers to the native connector and to IM).
struct ConnectorWiring {
    std::unique_ptr<connectors::TlsClientFactory> site_clients;
    std::unique_ptr<connectors::ImConnector> im;
    std::unique_ptr<connectors::AnsibleContextualiser> contextualiser;
    std::unique_ptr<connectors::Connector> native;  ///< OpenStack, contextualising when enabled
    std::unique_ptr<connectors::OwningConnectorRegistry> registry;
};

/// Marathon, Chronos, Kubernetes and Slurm, and VM sites routed to IM when the catalogue or
/// im.endpoint says so, else straight to Nova (configured with Ansible once ACTIVE when native
/// contextualisation is enabled, docs/contextualisation-ansible.md). `http` and `clock` must
/// outlive the result.
ConnectorWiring MakeConnectors(
    http::Client& http,
    const connectors::ImOptions& im,
    const connectors::OpenStackOptions& openstack,
    const ContextualisationConfig& contextualisation,
    const Clock& clock
);

}  // namespace orch::app
