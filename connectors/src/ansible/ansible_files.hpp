#pragma once

#include "connectors/contextualiser.hpp"

#include <string>
#include <string_view>

namespace orch::connectors::ansible {

/// `value` as one line of flow-style YAML in which every string is tagged !unsafe: Ansible then
/// never evaluates template text ("{{ lookup('pipe', ...) }}") on the orchestrator.
std::string UnsafeYaml(const Json& value);

/// A name safe as an Ansible group or host name and in a pattern: [A-Za-z0-9_] only, prefixed.
std::string GroupName(const std::string& node);
std::string HostName(const ContextHost& host);

/// True for a Galaxy role name we accept as a directory name: "namespace.role" style,
/// [A-Za-z0-9_.-], not starting with '.', at most 200 characters.
bool IsRoleName(std::string_view name);

/// The inventory (JSON, read by Ansible's yaml plugin): one group per Compute node, each host
/// with its address, port, user and the deployment's private key. kUserError when an address is
/// not an IP address.
ConnectorResult<std::string> InventoryText(const ContextPlan& plan, const std::string& key_file);

/// The playbook of one step: its roles on the group of its Compute host, its variables from
/// `vars_file`.
std::string PlaybookText(const ContextStep& step, const std::string& vars_file);

/// An interface playbook (`text`, as fetched from `playbook.url`) made to run on the step's
/// servers: each play's `hosts` becomes the group of the step's Compute host and its
/// `connection` is dropped (INDIGO playbooks say `hosts: localhost, connection: local`, written
/// for IM, which runs them on the VM itself; here they must never run on the orchestrator), its
/// vars_files become the step's variables then the operation's inputs (`vars_files`, in that
/// order). Only plays of tasks, roles and handlers are kept; import_playbook and the like are
/// kUserError (they would name files on the orchestrator), as is text that is not a YAML list of
/// plays.
ConnectorResult<std::string> InterfacePlaybookText(
    const ContextStep& step,
    const ContextPlaybook& playbook,
    const std::string& text,
    const std::vector<std::string>& vars_files
);

/// The lines of ansible-playbook's output that say what went wrong ("fatal: [...]",
/// "UNREACHABLE!", "ERROR!"), at most `cap` bytes; the output's last line when there is none.
std::string AnsibleFailure(const std::string& output, std::size_t cap);

}  // namespace orch::connectors::ansible
