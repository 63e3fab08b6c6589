#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace orch::connectors {

/// What a native configuration run is doing now: the TOSCA node being configured and, once
/// Ansible has started a task on it, the task's role (empty for a playbook's own task) and name.
struct ContextProgress {
    std::string node;
    std::string role;
    std::string task;
};

/// At most this many bytes of a role or task name are kept (the name comes from the template's
/// playbooks and roles: user text).
inline constexpr std::size_t kMaxProgressName = 200;

/// The role and task of a task header in Ansible's default output ("TASK [indigo-dc.docker :
/// Install docker] ****", "RUNNING HANDLER [name] ***"); nullopt for any other line. One pass over
/// the line, no pattern matcher: the names are cut to kMaxProgressName bytes, control characters
/// and bytes that are not UTF-8 become '?'. `node` is left empty.
std::optional<ContextProgress> ParseAnsibleTaskHeader(std::string_view line);

/// "configuring node worker", "configuring node worker (role indigo-dc.kubernetes, task 'Install
/// kubelet')", "configuring node worker (task 'Gathering Facts')": what the statusReason says.
std::string ProgressMessage(const ContextProgress& progress);

}  // namespace orch::connectors
