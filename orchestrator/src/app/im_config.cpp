#include "orchestrator/app/im_config.hpp"

namespace orch::app {

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
    return options;
}

std::set<std::string> ImConfigKeys() {
    return {"im.endpoint", "im.username", "im.password", "im.call_timeout", "im.max_response_bytes"};
}

}  // namespace orch::app
