#pragma once

#include "common/http_client.hpp"
#include "connectors/connector.hpp"
#include "connectors/keystone_auth.hpp"
#include "connectors/site_client_factory.hpp"

#include <chrono>
#include <string>

namespace orch::connectors {

struct OpenStackOptions {
    std::chrono::milliseconds call_timeout{20'000};  ///< each Nova/Glance/Neutron call
    /// Compute API microversion sent as `OpenStack-API-Version: compute <v>`; >= 2.37 so that
    /// "networks": "none"/"auto" is understood. Site option `compute_microversion` overrides it.
    std::string compute_microversion = "2.52";
    std::size_t max_servers_per_deployment = 128;
    KeystoneOptions keystone;
};

/// Virtual machines on OpenStack: Keystone v3 (password, application credential, or OIDC
/// federation with the user's token; see KeystoneAuth) and Nova. Each instance of each
/// tosca.nodes.Compute node is one server named OpenStackServerName(...), with the flavor and image
/// placement chose (DeployRequest::placements; ids, or names looked up in Nova/Glance). Networks
/// come from the site options `networks` (list of network ids or names) or `network` ("none",
/// "auto", an id or a name; default "auto"). Poll reports ACTIVE servers as ready, ERROR ones as
/// failed with Nova's fault ("No valid host" and friends → kTryAnotherSite), and the addresses
/// as public_address/private_address. A call answered 401 is retried once with a new token.
class OpenStackConnector final : public Connector {
   public:
    /// `clients` and `clock` (Keystone token expiry) must outlive it.
    OpenStackConnector(SiteClientFactory& clients, const Clock& clock, OpenStackOptions options = {});

    TargetKind kind() const override { return TargetKind::kOpenStack; }

    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    /// Reconciles the servers with the new counts: removal_list (server ids) and surplus
    /// instances are deleted, missing ones created. Existing servers are not resized.
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    /// Deletes every server of the deployment (also ones created by an interrupted Create that
    /// the handle does not list). kComplete when nothing was left; otherwise kInProgress and Poll
    /// reports kGone once Nova has removed them.
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    /// "start" (os-start), "stop" (os-stop) or "reboot" (soft) one server of the deployment.
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;

   private:
    // The operations themselves; the public ones run them under GuardJson, so an answer shaped
    // unlike the API promises becomes a failure instead of an exception.
    ConnectorResult<Handle> CreateUnguarded(const DeployRequest& request);
    ConnectorResult<Observation> PollUnguarded(const Handle& handle, const tosca::DeploymentSpec& spec);
    ConnectorResult<Handle> UpdateUnguarded(const Handle& handle, const DeployRequest& request);
    ConnectorResult<Deletion> DeleteUnguarded(const Handle& handle, bool force);
    ConnectorResult<bool> ActUnguarded(const Handle& handle, const std::string& physical_id, const std::string& action);

    SiteClientFactory& clients_;
    OpenStackOptions options_;
    KeystoneAuth keystone_;
};

}  // namespace orch::connectors
