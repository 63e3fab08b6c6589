#pragma once

#include "common/config.hpp"
#include "connectors/ansible_contextualiser.hpp"
#include "connectors/contextualising_connector.hpp"

#include <set>
#include <string>

namespace orch::app {

/// Native contextualisation (no IM): off unless `contextualisation.enabled`.
struct ContextualisationConfig {
    bool enabled = false;
    connectors::AnsibleOptions ansible;
    connectors::ContextualisingOptions connector;
};

/// `contextualisation.*`: enabled, work_dir, role_dir, galaxy_server, ansible_playbook,
/// ansible_galaxy, ssh_user, ssh_port, node_time_limit, connect_timeout, output_cap, log_cap,
/// parallel_nodes.
/// Errors name the key; enabled without a role source (role_dir or galaxy_server) is refused.
Result<ContextualisationConfig> ParseContextualisationConfig(const ConfigTree& tree);

std::set<std::string> ContextualisationConfigKeys();

}  // namespace orch::app
