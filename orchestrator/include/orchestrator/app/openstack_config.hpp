#pragma once

#include "common/config.hpp"
#include "common/result.hpp"
#include "connectors/openstack_connector.hpp"

#include <set>
#include <string>

namespace orch::app {

/// Reads the `openstack` section of the direct OpenStack connector: openstack.call_timeout (each
/// Nova/Glance/Neutron call) and openstack.create_settle (how long a server create whose answer
/// was lost is looked up by name before the Create is retried).
Result<connectors::OpenStackOptions> OpenStackOptionsFromConfig(const ConfigTree& config);

std::set<std::string> OpenStackConfigKeys();

}  // namespace orch::app
