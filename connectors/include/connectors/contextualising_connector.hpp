#pragma once

#include "connectors/contextualiser.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace orch::connectors {

struct ContextualisingOptions {
    std::string ssh_user = "cloudadm";  ///< site option `ssh_user` overrides it
    int ssh_port = 22;                  ///< site option `ssh_port` overrides it
    std::size_t log_cap = 256 * 1024;   ///< Ansible output kept for GET /deployments/{id}/log
    /// How long a Poll waits for a running configuration to end (or to move on to another node)
    /// before it answers "in progress" with what the run is doing: a short configuration still
    /// ends within the poll that started it.
    std::chrono::milliseconds progress_wait{2000};
    /// When set, called with the deployment id (from the run's thread) when its configuration
    /// starts another node or ends: main makes the deployment's poll due at once, so the change
    /// is not seen only at the next backed-off poll.
    std::function<void(const std::string& deployment_id)> changed;
};

/// A VM connector (OpenStack) plus native contextualisation, for the workflow one connector like
/// any other. When the template has nodes with Ansible Galaxy roles, Create and Update give the
/// servers the deployment's SSH key (cloud-init), and the Poll that first finds every server
/// ACTIVE starts their configuration; kReady is reported once it succeeded: Ansible's output goes
/// to the observation's log, and a failed run (unreachable server, failed task, time limit) is
/// reported as a failed attempt with Ansible's message, so the workflow cleans up and tries the
/// next site. The key is kept per deployment and site service, so a failed attempt's cleanup
/// never removes the key of the next attempt. Templates without roles pass through unchanged.
///
/// The configuration runs on a thread of its own; while it runs, each Poll (waiting at most
/// `progress_wait`) answers kInProgress with what it is doing as the site message ("configuring
/// node worker (role indigo-dc.kubernetes, task 'Install kubelet')", statusReason and /log, as
/// IM's contmsg) and a "== configuring node X" log line per node started. The workflow calls
/// Poll on its own worker threads, never an I/O thread.
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
    struct Run;
    /// Starts configuring `handle`'s servers with `plan` on a thread of its own; `notes` open
    /// its log.
    std::shared_ptr<Run> StartRun(const Handle& handle, ContextPlan plan, std::string notes);
    /// `observation` while `run` goes on (waiting up to progress_wait for it to move), or once it
    /// ended (Finish).
    ConnectorResult<Observation> Progress(Observation observation, std::shared_ptr<Run> run, const Handle& handle);
    std::shared_ptr<Run> FindRun(const std::string& context_id);
    /// Whether `run` ended and was planned for servers other than those `observation` reports
    /// (a run started by a health check's or an action's poll, then a scale): its outcome says
    /// nothing about them.
    bool EndedForOtherServers(Run& run, const Observation& observation, const Handle& handle);
    /// Removes the run (stopping it when still running; waits for its thread).
    void EndRun(const std::string& context_id);
    /// The observation once `run` ended: its outcome applied (kReady with facts and access), or
    /// the failure.
    ConnectorResult<Observation> Finish(Observation observation, Run& run);

    std::unique_ptr<Connector> inner_;
    Contextualiser& contextualiser_;
    ContextualisingOptions options_;
    /// The configurations started by Poll, by context id, until a Poll reports how they ended:
    /// Delete stops the one of its deployment (its ansible-playbook process group is killed)
    /// before deleting the servers. Last: its threads use what is above.
    std::mutex running_mutex_;
    std::map<std::string, std::shared_ptr<Run>> running_;
};

/// The contextualisation id of a deployment on one site service: "<deployment id>-<hash of the
/// service id>" (letters, digits and '-').
std::string ContextId(const std::string& deployment_id, const std::string& service_id);

}  // namespace orch::connectors
