#pragma once

#include "connectors/connector.hpp"

#include <string>

namespace orch::connectors {

/// The Nova server name of one instance of a node: "orch-<deployment id>-<node>-<index>", with
/// characters outside [A-Za-z0-9_.-] replaced by '_'. Re-running Create finds the servers it
/// already created by this name instead of creating them twice.
std::string OpenStackServerName(const std::string& deployment_id, const std::string& node, int index);

/// True when `node` becomes virtual machines (it derives from tosca.nodes.Compute).
bool IsVirtualMachineNode(const tosca::NodeSpec& node);

/// What the connector resolved for one node before building the body.
struct ServerChoice {
    std::string flavor_id;
    std::string image_id;
    Json networks = "auto";  ///< "none", "auto" or [{"uuid": ...}] (microversion >= 2.37)
};

/// The body of `POST /v2.1/servers` for instance `index` of `node`: the name above, flavor and
/// image, networks, the key pair (node property `key_name`, else site option `keypair`),
/// metadata naming the deployment, node and index (plus the node's `tags`), and cloud-init
/// user data, base64-encoded: the node property `user_data` as written, else a #cloud-config
/// creating the node's `os_users` with their SSH keys. kUserError when the user data is larger
/// than Nova accepts.
ConnectorResult<Json> BuildServerCreate(
    const DeployRequest& request, const tosca::NodeSpec& node, int index, const ServerChoice& choice
);

/// True for addresses reachable from outside the site: anything but RFC 1918, shared (100.64/10),
/// loopback, link-local and IPv6 unique-local/link-local addresses. Nova reports provider-network
/// addresses as "fixed", so the type alone does not tell.
bool IsPublicAddress(const std::string& address);

}  // namespace orch::connectors
