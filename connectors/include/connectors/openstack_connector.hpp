#pragma once

#include "common/http_client.hpp"
#include "connectors/connector.hpp"
#include "connectors/keystone_auth.hpp"
#include "connectors/site_client_factory.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace orch::connectors {

struct OpenStackOptions {
    /// Each Nova/Glance/Neutron call (config `openstack.call_timeout`). A busy Nova has taken
    /// 28 s to answer a server create.
    std::chrono::milliseconds call_timeout{60'000};
    /// A server create whose answer was lost (timeout, reset connection, 5xx) may still be made
    /// by Nova after we gave up on it, and Nova lists it only once its API call ends. Before the
    /// Create reports the failure (and is retried), it looks the server up by its name this long,
    /// every `create_settle_interval`, and adopts it when it appears (config
    /// `openstack.create_settle`; 0 turns the look-ups off).
    std::chrono::milliseconds create_settle{60'000};
    std::chrono::milliseconds create_settle_interval{3'000};
    /// How the connector waits between those look-ups (on a workflow worker, never an I/O
    /// thread); tests replace it so they do not sleep.
    std::function<void(std::chrono::milliseconds)> sleep = [](std::chrono::milliseconds d) {
        std::this_thread::sleep_for(d);
    };
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
    /// "Keystone v3.14": the identity endpoint's own version document (GET of the endpoint,
    /// unauthenticated, as any client discovers the API).
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override;

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
