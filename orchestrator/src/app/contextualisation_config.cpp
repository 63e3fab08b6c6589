#include "orchestrator/app/contextualisation_config.hpp"

namespace orch::app {

std::set<std::string> ContextualisationConfigKeys() {
    return {
        "contextualisation.enabled",
        "contextualisation.work_dir",
        "contextualisation.role_dir",
        "contextualisation.galaxy_server",
        "contextualisation.ansible_playbook",
        "contextualisation.ansible_galaxy",
        "contextualisation.ssh_user",
        "contextualisation.ssh_port",
        "contextualisation.node_time_limit",
        "contextualisation.connect_timeout",
        "contextualisation.output_cap",
        "contextualisation.log_cap",
        "contextualisation.parallel_nodes",
    };
}

Result<ContextualisationConfig> ParseContextualisationConfig(const ConfigTree& t) {
    ContextualisationConfig c;
    auto& a = c.ansible;
    ORCH_ASSIGN_OR_RETURN(c.enabled, t.GetBool("contextualisation.enabled", false));
    ORCH_ASSIGN_OR_RETURN(a.work_dir, t.GetString("contextualisation.work_dir", a.work_dir));
    ORCH_ASSIGN_OR_RETURN(a.role_dir, t.GetString("contextualisation.role_dir", a.role_dir));
    ORCH_ASSIGN_OR_RETURN(a.galaxy_server, t.GetString("contextualisation.galaxy_server", a.galaxy_server));
    ORCH_ASSIGN_OR_RETURN(a.ansible_playbook, t.GetString("contextualisation.ansible_playbook", a.ansible_playbook));
    ORCH_ASSIGN_OR_RETURN(a.ansible_galaxy, t.GetString("contextualisation.ansible_galaxy", a.ansible_galaxy));
    ORCH_ASSIGN_OR_RETURN(c.connector.ssh_user, t.GetString("contextualisation.ssh_user", c.connector.ssh_user));
    ORCH_ASSIGN_OR_RETURN(const auto port, t.GetInt("contextualisation.ssh_port", c.connector.ssh_port, 1, 65535));
    c.connector.ssh_port = static_cast<int>(port);
    ORCH_ASSIGN_OR_RETURN(const auto limit, t.GetDuration("contextualisation.node_time_limit", a.node_time_limit));
    a.node_time_limit = std::chrono::duration_cast<std::chrono::seconds>(limit);
    ORCH_ASSIGN_OR_RETURN(const auto connect, t.GetDuration("contextualisation.connect_timeout", a.connect_timeout));
    a.connect_timeout = std::chrono::duration_cast<std::chrono::seconds>(connect);
    ORCH_ASSIGN_OR_RETURN(const auto output, t.GetBytes("contextualisation.output_cap", a.output_cap));
    a.output_cap = static_cast<std::size_t>(output);
    ORCH_ASSIGN_OR_RETURN(
        const auto parallel,
        t.GetInt("contextualisation.parallel_nodes", static_cast<std::int64_t>(a.parallel_nodes), 1, 64)
    );
    a.parallel_nodes = static_cast<std::size_t>(parallel);
    ORCH_ASSIGN_OR_RETURN(const auto log, t.GetBytes("contextualisation.log_cap", c.connector.log_cap));
    c.connector.log_cap = static_cast<std::size_t>(log);
    if (a.node_time_limit < std::chrono::seconds(1) || a.connect_timeout < std::chrono::seconds(1)) {
        return Error::InvalidArgument(
            "config keys 'contextualisation.node_time_limit' and 'contextualisation.connect_timeout': at least 1s"
        );
    }
    if (a.output_cap < 1024 || c.connector.log_cap < 1024) {
        return Error::InvalidArgument(
            "config keys 'contextualisation.output_cap' and 'contextualisation.log_cap': at least 1KiB"
        );
    }
    if (c.enabled && a.role_dir.empty() && a.galaxy_server.empty()) {
        return Error::InvalidArgument(
            "config key 'contextualisation.role_dir': a role source (role_dir or galaxy_server) is required when "
            "contextualisation.enabled is true"
        );
    }
    return c;
}

}  // namespace orch::app
