#pragma once

#include "connectors/connector.hpp"
#include "connectors/context_progress.hpp"

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace orch::connectors {

/// One virtual machine to configure: an instance of a Compute node and where SSH reaches it.
struct ContextHost {
    std::string node;  ///< the Compute node's name
    int index = 0;
    std::string address;
    int port = 22;
};

/// A node's Standard lifecycle operation implemented by an Ansible playbook (INDIGO types name
/// one for `configure`), run after the node's roles with its evaluated inputs as variables.
struct ContextPlaybook {
    std::string operation;         ///< "create", "configure" or "start"
    std::string url;               ///< read only through the TOSCA import mirror/allow-list
    Json inputs = Json::object();  ///< the operation's evaluated inputs
};

/// The configuration of one software node: its Ansible roles applied, with its variables, on
/// every instance of the Compute node that hosts it.
struct ContextStep {
    std::string node;                        ///< the software node (or a Compute node with roles of its own)
    std::string host_node;                   ///< the Compute node it ends up on (HostedOn chain)
    std::vector<std::string> roles;          ///< Galaxy role names, e.g. "indigo-dc.docker"
    Json vars = Json::object();              ///< the resolved inputs, then the node's properties
    std::vector<ContextPlaybook> playbooks;  ///< in lifecycle order, after the roles
    /// The steps (by node) configured before this one: those its node needs through HostedOn,
    /// ConnectsTo, other requirements or depends_on, directly or through nodes without steps.
    std::vector<std::string> after;
};

/// Everything one configuration run needs; steps are in dependency order (HostedOn/ConnectsTo).
struct ContextPlan {
    std::string deployment_id;
    std::string ssh_user;  ///< the account the injected key logs into
    std::vector<ContextHost> hosts;
    std::vector<ContextStep> steps;
    /// When set, told what the run is doing as it goes: a node's configuration starting (role
    /// and task empty), then each task Ansible starts on it. Called from the run's threads (one
    /// per node configured side by side), so it must be thread-safe.
    std::function<void(const ContextProgress&)> progress;
};

/// What one configured server says about itself (gathered by Ansible after the run): its
/// node and instance, and a flat object of facts (`ansible_distribution`, `ansible_hostname`,
/// `ansible_memtotal_mb`, `num_gpus`, ...; see ansible::FactNames).
struct HostFacts {
    std::string node;
    int index = 0;
    Json facts = Json::object();
};

/// What a successful run produced: per-node progress, the (bounded) Ansible output and the
/// servers' facts (empty when they could not be gathered: the run still succeeded).
struct ContextOutcome {
    std::string log;
    std::vector<HostFacts> facts = {};
};

/// Configures a deployment's virtual machines once the site reports them running (native
/// contextualisation: no Infrastructure Manager). Implementations block for as long as the
/// configuration takes (bounded by their own limits) and must be called off the I/O threads.
class Contextualiser {
   public:
    virtual ~Contextualiser() = default;
    /// The OpenSSH public key ("ssh-ed25519 AAAA... orch-<id>") the servers of `deployment_id`
    /// must accept; made once per deployment and the same on every later call.
    virtual ConnectorResult<std::string> PublicKey(const std::string& deployment_id) = 0;
    /// Runs the plan. Re-running a plan that succeeded or failed half-way is safe (roles are
    /// idempotent). A failure carries Ansible's own message; `stop` cancels the run.
    virtual ConnectorResult<ContextOutcome> Configure(const ContextPlan& plan, std::stop_token stop) = 0;
    /// Removes everything kept for the deployment (its key, generated files).
    virtual void Forget(const std::string& deployment_id) = 0;
};

/// The steps of `spec`: every node with artifacts of type tosca.artifacts.AnsibleGalaxy.role
/// (the template's or its type's) or with Standard create/configure/start operations whose
/// implementation is a playbook (.yml/.yaml), in dependency order, each placed on the Compute node its HostedOn chain
/// ends at. kUserError for a dependency cycle or a node with roles and no Compute host. Nodes without roles are skipped
/// (there is nothing to run for them).
ConnectorResult<std::vector<ContextStep>> BuildContextSteps(const tosca::DeploymentSpec& spec);

/// Evaluates, in place, the steps' variables and playbook inputs that read the deployment's
/// attributes (`front_end_ip: {get_attribute: [lrms_server, private_address, 0]}`,
/// `{get_attribute: [HOST, ...]}`, inside concat/join/token too) against the servers' addresses
/// the observation reports, as IM does before it runs Ansible: SELF and HOST name the step's
/// node and its server, a node hosted on a server reads its server's addresses. A value that
/// cannot be computed becomes null (never the expression); the returned notes say which and why.
std::vector<std::string> EvaluateStepValues(
    const tosca::DeploymentSpec& spec, const Observation& observation, std::vector<ContextStep>& steps
);

/// The hosts of an observation: every instance of a Compute node, at its public address when it
/// has one, else its private one. kRetryHere when an instance has no address yet.
ConnectorResult<std::vector<ContextHost>> ContextHosts(const Observation& observation, int port);

}  // namespace orch::connectors
