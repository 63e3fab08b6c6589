#pragma once

#include "connectors/contextualiser.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>

namespace orch::connectors {

struct ContextualisingOptions {
    std::string ssh_user = "cloudadm";  ///< site option `ssh_user` overrides it
    int ssh_port = 22;                  ///< site option `ssh_port` overrides it
    std::size_t log_cap = 256 * 1024;   ///< Ansible output kept for GET /deployments/{id}/log
};

/// A VM connector (OpenStack) plus native contextualisation, for the workflow one connector like
/// any other. When the template has nodes with Ansible Galaxy roles, Create and Update give the
/// servers the deployment's SSH key (cloud-init), and the Poll that first finds every server
/// ACTIVE configures them before it reports kReady: Ansible's output goes to the observation's log,
/// and a failed run (unreachable server, failed task, time limit) is reported as a failed
/// attempt with Ansible's message, so the workflow cleans up and tries the next site. The key is
/// kept per deployment and site service, so a failed attempt's cleanup never removes the key of
/// the next attempt. Templates without roles pass through unchanged.
///
/// Poll blocks for as long as the configuration runs (bounded by the contextualiser's limits);
/// the workflow calls it on its own worker threads, never an I/O thread.
class ContextualisingConnector final : public Connector {
   public:
    ContextualisingConnector(
        std::unique_ptr<Connector> inner, Contextualiser& contextualiser, ContextualisingOptions options
    );

    TargetKind kind() const override { return inner_->kind(); }
    ConnectorResult<Handle> Create(const DeployRequest& request) override;
    ConnectorResult<Observation> Poll(const Handle& handle, const tosca::DeploymentSpec& spec) override;
    ConnectorResult<Handle> Update(const Handle& handle, const DeployRequest& request) override;
    ConnectorResult<Deletion> Delete(const Handle& handle, bool force) override;
    ConnectorResult<bool> Act(const Handle& handle, const std::string& physical_id, const std::string& action) override;
    ConnectorResult<std::string> SiteVersion(const SiteTarget& target) override { return inner_->SiteVersion(target); }

   private:
    /// `request` with the key of its deployment and service, when the template needs one.
    ConnectorResult<DeployRequest> WithKey(const DeployRequest& request);

    std::unique_ptr<Connector> inner_;
    Contextualiser& contextualiser_;
    ContextualisingOptions options_;
    /// The configurations running in Poll, by context id: Delete stops the one of its
    /// deployment (its ansible-playbook process group is killed) before deleting the servers.
    std::mutex running_mutex_;
    std::map<std::string, std::stop_source> running_;
};

/// The contextualisation id of a deployment on one site service: "<deployment id>-<hash of the
/// service id>" (letters, digits and '-').
std::string ContextId(const std::string& deployment_id, const std::string& service_id);

}  // namespace orch::connectors
