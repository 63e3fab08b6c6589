#include "orchestrator/app/im_config.hpp"

namespace orch::app {
namespace {

/// The per-issuer CLUES client (`auth.issuers.<name>.clues_client_id/_secret`, the original's
/// `oidc.iam-properties[issuer].clues.client-id/-secret`), by the issuer's exact `iss`.
Status ReadCluesClients(const ConfigTree& config, std::map<std::string, connectors::CluesClient>& out) {
    for (const auto& name : config.ChildKeys("auth.issuers")) {
        const std::string section = "auth.issuers." + name;
        ORCH_ASSIGN_OR_RETURN(const std::string issuer, config.GetString(section + ".issuer", ""));
        connectors::CluesClient client;
        ORCH_ASSIGN_OR_RETURN(client.id, config.GetString(section + ".clues_client_id", ""));
        ORCH_ASSIGN_OR_RETURN(client.secret, config.GetString(section + ".clues_client_secret", ""));
        if (client.id.empty() != client.secret.empty()) {
            return Error::InvalidArgument(section + ": clues_client_id and clues_client_secret go together");
        }
        if (!issuer.empty() && !client.id.empty()) {
            out.emplace(issuer, std::move(client));
        }
    }
    return Ok();
}

}  // namespace

Result<connectors::ImOptions> ImOptionsFromConfig(const ConfigTree& config) {
    connectors::ImOptions options;
    ORCH_ASSIGN_OR_RETURN(options.endpoint, config.GetString("im.endpoint", ""));
    if (!options.endpoint.empty() && options.endpoint.rfind("http://", 0) != 0 &&
        options.endpoint.rfind("https://", 0) != 0) {
        return Error::InvalidArgument("im.endpoint must be an http(s) URL");
    }
    ORCH_ASSIGN_OR_RETURN(options.username, config.GetString("im.username", ""));
    ORCH_ASSIGN_OR_RETURN(options.password, config.GetString("im.password", ""));
    ORCH_ASSIGN_OR_RETURN(options.call_timeout, config.GetDuration("im.call_timeout", options.call_timeout));
    ORCH_ASSIGN_OR_RETURN(
        const std::uint64_t bytes, config.GetBytes("im.max_response_bytes", options.max_response_bytes)
    );
    options.max_response_bytes = static_cast<std::size_t>(bytes);
    ORCH_ASSIGN_OR_RETURN(options.orchestrator_url, config.GetString("server.external_base_url", ""));
    while (!options.orchestrator_url.empty() && options.orchestrator_url.back() == '/') {
        options.orchestrator_url.pop_back();
    }
    ORCH_RETURN_IF_ERROR(ReadCluesClients(config, options.clues_clients));
    return options;
}

std::set<std::string> ImConfigKeys() {
    return {"im.endpoint", "im.username", "im.password", "im.call_timeout", "im.max_response_bytes"};
}

}  // namespace orch::app
