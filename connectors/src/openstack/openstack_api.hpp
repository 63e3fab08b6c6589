#pragma once

#include "common/http_client.hpp"
#include "connectors/connector.hpp"
#include "connectors/keystone_auth.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orch::connectors::openstack {

/// The OpenStack APIs of one site as one user, for the length of one connector call: Nova
/// (microversioned), Glance and Neutron, with endpoints from the token's catalog (site options
/// `interface`, default "public"; SiteTarget::region). A call answered 401 gets a fresh token
/// and is sent once more.
class OpenStackApi {
   public:
    OpenStackApi(
        std::shared_ptr<http::Client> client,
        KeystoneAuth& keystone,
        const SiteTarget& target,
        std::chrono::milliseconds timeout,
        std::string microversion
    );

    /// POST /servers; the new server's id.
    ConnectorResult<std::string> CreateServer(const Json& body);
    /// GET /servers/detail?name=^<prefix>: every live server whose name starts with `prefix`.
    ConnectorResult<std::vector<Json>> ListServers(const std::string& prefix);
    /// GET /servers/<id>; nullopt when the server is gone.
    ConnectorResult<std::optional<Json>> GetServer(const std::string& id);
    /// DELETE /servers/<id>; false when the server was already gone.
    ConnectorResult<bool> DeleteServer(const std::string& id);
    /// POST /servers/<id>/action with `action` ({"os-start": null}, ...).
    ConnectorResult<bool> ServerAction(const std::string& id, const Json& action, const std::string& what);

    /// The flavor id for a placement (its id, else looked up by name).
    ConnectorResult<std::string> FlavorId(const NodePlacement& placement);
    /// The image id for a placement (its id, else an active Glance image of that name).
    ConnectorResult<std::string> ImageId(const NodePlacement& placement);
    /// The `networks` value of a server create from the site options `networks`/`network`.
    ConnectorResult<Json> Networks();

   private:
    ConnectorResult<http::ClientResponse> Call(
        const std::string& service_type, const std::string& method, const std::string& path, const Json* body
    );
    ConnectorResult<http::ClientResponse> Send(
        const std::string& service_type,
        const std::string& method,
        const std::string& path,
        const Json* body,
        const ScopedToken& token
    );
    ConnectorResult<std::string> NetworkId(const std::string& name_or_id);

    std::shared_ptr<http::Client> client_;
    KeystoneAuth& keystone_;
    const SiteTarget& target_;
    std::chrono::milliseconds timeout_;
    std::string microversion_;
};

}  // namespace orch::connectors::openstack
