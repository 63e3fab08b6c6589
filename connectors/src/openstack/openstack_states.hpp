#pragma once

#include "connectors/connector.hpp"

#include <map>
#include <string>
#include <vector>

namespace orch::connectors::openstack {

/// One server of a deployment, as kept in Handle::state["servers"].
struct ServerRef {
    std::string node;
    int index = 0;
    std::string name;
    std::string id;
};

Json ToJson(const ServerRef& ref);
/// The servers listed in a handle; kUserError when the handle is not one of ours.
ConnectorResult<std::vector<ServerRef>> ServerRefs(const Handle& handle);

/// The deployment as Nova shows it: `live` maps server id → server (GET /servers/detail); a server
/// missing there is gone. Ready when every server is ACTIVE or SHUTOFF with no task running;
/// failed when one is in ERROR (Nova's fault message in the reason, kTryAnotherSite) or vanished;
/// gone when none is left.
Observation ObserveServers(const std::vector<ServerRef>& refs, const std::map<std::string, Json>& live);

}  // namespace orch::connectors::openstack
