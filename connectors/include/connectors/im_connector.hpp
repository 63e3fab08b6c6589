#pragma once

#include "connectors/connector.hpp"
#include "connectors/im_template.hpp"
#include "connectors/site_client_factory.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace orch::connectors {

struct ImOptions {
    /// The global IM (`im.endpoint`), as the original's `im.url`. A site's catalogue property
    /// `im_endpoint` overrides it. Empty: only sites naming their own IM are reached through IM.
    std::string endpoint;
    /// IM's own record when the user's token is not at hand (service deployments, password
    /// sites): `type = InfrastructureManager; username = ...; password = ...`.
    std::string username, password;
    std::chrono::milliseconds call_timeout{30'000};
    std::size_t max_response_bytes = 4u << 20;
    std::size_t max_log_bytes = 64u << 10;      ///< contextualisation text kept for the log
    std::size_t max_vms_per_poll = 128;         ///< VM records read per poll
    std::size_t max_template_bytes = 2u << 20;  ///< TOSCA sent to IM
    /// This orchestrator's public URL (`server.external_base_url`): the PAAS_URL tag and the
    /// ElasticCluster's orchestrator_url (CLUES calls it back). Empty: neither is written.
    std::string orchestrator_url;
    /// The CLUES client of each issuer (`auth.issuers.<name>.clues_client_id/_secret`, the
    /// original's `oidc.iam-properties[issuer].clues.client-id/-secret`), by exact issuer: an
    /// ElasticCluster of that issuer's user gets `iam_clues_client_id/_secret`.
    std::map<std::string, CluesClient> clues_clients;
};

/// Virtual machines (and the software on them) through the Infrastructure Manager, as the
/// original orchestrator deploys every IaaS template: the TOSCA the user sent, with inputs
/// resolved and the flavor/image placement chose written in, is POSTed to
/// `/infrastructures?async=true`; the `Authorization` header carries IM's record (user's token)
/// and one cloud record for the chosen site only, so IM cannot put VMs anywhere else. Poll
/// reads the aggregate state (configured → ready; failed/unconfigured → failed with IM's
/// contextualisation message, so the workflow tries the next site), the VM records (bound to
/// TOSCA nodes by the RADL system id), the outputs IM evaluated and the contextualisation log.
class ImConnector final : public Connector {
   public:
    ImConnector(SiteClientFactory& clients, ImOptions options);

    TargetKind kind() const override { return TargetKind::kOpenStack; }

    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    /// Scales as the original: the VMs to go (removal_list naming VM ids, lowered counts, nodes
    /// gone from the template) with one `DELETE .../vms/<id,id>`, then the new TOSCA (without
    /// removal_list) POSTed to the infrastructure for IM to add what the counts lack. The kept
    /// VMs keep their instance indexes (remembered in the handle) so resources stay bound.
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    /// "start" / "stop" one VM (PUT .../vms/<vm>/start|stop).
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;
    /// "IM 1.19.0": IM's GET /version (the site's cloud is behind IM and not asked).
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override;

    /// The IM endpoint for `target` (site property `im_endpoint`, else the global one), or "".
    std::string EndpointFor(const SiteTarget& target) const;

   private:
    /// The document for IM, with the CLUES client of the owner's issuer when configured.
    ConnectorResult<std::string> TemplateFor(const DeployRequest& request) const;

    SiteClientFactory& clients_;
    ImOptions options_;
};

/// True when a handle was made by the ImConnector (its state names the infrastructure).
bool IsImHandle(const Handle& handle);

/// Sends VM deployments of a site through IM or through the native connector (OpenStack/Nova):
/// the catalogue property `deployment_path` ("im" | "native") decides when present; otherwise a
/// site with its own `im_endpoint`, or any site when a global IM is configured, goes through IM.
/// Existing deployments follow their handle, so a configuration change never orphans them.
class VmRouter final : public Connector {
   public:
    /// Both connectors must outlive the router.
    VmRouter(Connector& native, ImConnector& im) : native_(native), im_(im) {}

    TargetKind kind() const override { return TargetKind::kOpenStack; }
    bool UsesIm(const SiteTarget& target) const;

    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override {
        return UsesIm(target) ? im_.SiteVersion(target) : native_.SiteVersion(target);
    }

   private:
    Connector& For(const Handle& handle) { return IsImHandle(handle) ? static_cast<Connector&>(im_) : native_; }

    Connector& native_;
    ImConnector& im_;
};

}  // namespace orch::connectors
