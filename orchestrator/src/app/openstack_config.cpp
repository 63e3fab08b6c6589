#include "orchestrator/app/openstack_config.hpp"

namespace orch::app {

Result<connectors::OpenStackOptions> OpenStackOptionsFromConfig(const ConfigTree& config) {
    connectors::OpenStackOptions options;
    ORCH_ASSIGN_OR_RETURN(options.call_timeout, config.GetDuration("openstack.call_timeout", options.call_timeout));
    ORCH_ASSIGN_OR_RETURN(options.create_settle, config.GetDuration("openstack.create_settle", options.create_settle));
    if (options.call_timeout < std::chrono::seconds(1)) {
        return Error::InvalidArgument("config key 'openstack.call_timeout': at least 1s");
    }
    return options;
}

std::set<std::string> OpenStackConfigKeys() {
    return {"openstack.call_timeout", "openstack.create_settle"};
}

}  // namespace orch::app
