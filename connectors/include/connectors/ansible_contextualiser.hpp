#pragma once

#include "connectors/contextualiser.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace orch::connectors {

struct AnsibleOptions {
    /// One private directory per deployment under it: the SSH key pair, the inventory, the
    /// generated playbooks. Replicas that take over each other's jobs need it shared.
    std::string work_dir = "/var/lib/orchestrator/contextualisation";
    /// The role source: a directory holding one directory per Galaxy role name
    /// ("indigo-dc.docker/tasks/main.yml", ...).
    std::string role_dir;
    /// When set, a role missing from role_dir is installed from this Galaxy server with
    /// `ansible-galaxy role install --server <url>` into the deployment's directory.
    std::string galaxy_server;
    std::string ansible_playbook = "ansible-playbook";
    std::string ansible_galaxy = "ansible-galaxy";
    std::string ssh_keygen = "ssh-keygen";
    std::chrono::seconds node_time_limit{1800};  ///< one node's playbook run
    std::chrono::seconds connect_timeout{30};    ///< SSH connection to a server
    std::size_t output_cap = 64 * 1024;          ///< Ansible output kept per node run
    /// Nodes configured at the same time (their dependencies done, on different servers).
    std::size_t parallel_nodes = 4;
    /// Reads an interface playbook's URL; main gives the TOSCA engine's ReadUrl (the import
    /// mirror map and host allow-list), so a template never makes the orchestrator fetch from
    /// anywhere else. Unset: templates with interface playbooks are refused.
    std::function<Result<std::string>(const std::string& url)> read_playbook;
};

/// Native contextualisation with real Ansible: ansible-playbook (Debian ansible-core) over SSH
/// with a per-deployment ed25519 key, one run per software node in dependency order (independent
/// nodes on different servers side by side, up to `parallel_nodes`), each
/// applying the node's Galaxy roles to the instances of its Compute host. Every value from the
/// template reaches Ansible tagged !unsafe, so template text is never evaluated as Jinja on the
/// orchestrator. ansible-playbook runs as a bounded child process (time limit, output cap, its
/// process group killed on timeout or cancel).
class AnsibleContextualiser final : public Contextualiser {
   public:
    explicit AnsibleContextualiser(AnsibleOptions options);

    ConnectorResult<std::string> PublicKey(const std::string& deployment_id) override;
    ConnectorResult<ContextOutcome> Configure(const ContextPlan& plan, std::stop_token stop) override;
    void Forget(const std::string& deployment_id) override;

   private:
    ConnectorResult<std::string> DeploymentDir(const std::string& deployment_id) const;
    std::optional<Failure> InstallRoles(const ContextPlan& plan, const std::string& dir, const std::stop_token& stop);
    std::vector<std::string> Environment(const std::string& dir) const;
    /// The playbook file of one step: its roles, then its interface playbooks made to run on
    /// its servers.
    ConnectorResult<std::string> StepPlaybook(const ContextStep& step, const std::string& dir, const std::string& stem);

    /// After a successful run: the servers' facts into `outcome` (see ansible::FactsPlaybookText).
    /// A failure only when cancelled; facts that cannot be gathered are left out with a log line.
    std::optional<Failure> GatherFacts(
        const ContextPlan& plan, const std::string& dir, const std::stop_token& stop, ContextOutcome& outcome
    );

    AnsibleOptions options_;
};

}  // namespace orch::connectors
