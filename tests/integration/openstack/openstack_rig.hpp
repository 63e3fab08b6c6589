#pragma once

#include <common/http_client.hpp>
#include <connectors/connector.hpp>
#include <connectors/openstack_connector.hpp>
#include <connectors/site_client_factory.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace orch::test::openstack {

/// The OpenStack rig started by the `openstack` CTest fixture: DIR/rig.json as written by
/// scripts/openstack/bootstrap.py.
const Json& Rig();

enum class Auth { kPassword, kApplicationCredential, kOidcFederation };

/// A site target for the rig's project "demo" with the given authentication, networks "none".
connectors::SiteTarget Target(Auth auth);

/// A tosca.nodes.indigo.Compute node.
tosca::NodeSpec VmNode(const std::string& name);

/// The placement of a rig flavor ("m1.small", "gpu.v100", "gpu.v100x3") and the test image.
connectors::NodePlacement Placement(const std::string& flavor);

http::Client& Client();
connectors::SiteClientFactory& Clients();
/// The real clock (Keystone tokens expire in real time on the rig).
const Clock& RealClock();
/// Connector options for the rig: Nova and Glance (Python services on the same 2 cores) can take
/// longer than the production default per call when the machine is busy.
connectors::OpenStackOptions ConnectorOptions();

/// GET on Nova as the rig's admin (microversion 2.52), independent of the connector under test:
/// the status code and the parsed body.
std::pair<int, Json> AdminNovaGet(const std::string& path);

/// Polls every 500 ms until `done` holds or `limit` passes; returns the last observation. A
/// Failure from Poll throws, failing the test with its message.
connectors::Observation PollUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit
);

}  // namespace orch::test::openstack
