// Marathon's request validation: the published JSON schema first, then the server-side rules
// of AppValidation.scala (v1.7) that the schema cannot express (GPUs, containerizers, networks).
#include "marathon_model.hpp"

#include <set>

namespace orch::sim {
namespace {

// "/apps/0/container/volumes/1" -> "/apps(0)/container/volumes(1)", as Marathon renders paths.
std::string MarathonPath(const std::string& pointer) {
    if (pointer.empty()) {
        return "/";
    }
    std::string out;
    std::size_t pos = 0;
    while (pos < pointer.size()) {
        const auto next = pointer.find('/', pos + 1);
        const std::string token =
            pointer.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
        const bool numeric = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
        if (numeric && !out.empty()) {
            out += "(" + token + ")";
        } else {
            out += "/" + token;
        }
        pos = next == std::string::npos ? pointer.size() : next;
    }
    return out;
}

void AddDetail(Json& details, const std::string& path, const std::string& error) {
    for (auto& d : details) {
        if (d["path"] == path) {
            d["errors"].push_back(error);
            return;
        }
    }
    details.push_back({{"path", path}, {"errors", Json::array({error})}});
}

Json SchemaDetails(const SchemaSet& schemas, const std::string& schema, const Json& body, const std::string& prefix) {
    Json details = Json::array();
    auto violations = schemas.Validate(schema, body, 20);
    if (!violations) {
        AddDetail(details, "/", "simulator has no schema " + schema);
        return details;
    }
    for (const auto& v : *violations) {
        AddDetail(details, prefix + (v.path.empty() && !prefix.empty() ? "" : MarathonPath(v.path)), v.message);
    }
    return details;
}

std::string NetworkMode(const Json& app) {
    const auto it = app.find("networks");
    if (it == app.end() || !it->is_array() || it->empty() || !(*it)[0].is_object()) {
        return "";
    }
    return (*it)[0].value("mode", "container");
}

void CheckGpuRules(const SimConfig& config, const Json& app, const std::string& prefix, Json& details) {
    const double gpus = app.value("gpus", 0.0);
    if (gpus <= 0) {
        return;
    }
    if (!config.marathon_gpu_resources) {
        AddDetail(
            details,
            prefix + "/gpus",
            "Feature gpu_resources is not enabled. Enable with --enable_features gpu_resources)"
        );
    }
    const auto container = app.find("container");
    if (container != app.end() && container->is_object() && container->value("type", "DOCKER") == "DOCKER") {
        AddDetail(details, prefix.empty() ? "/" : prefix, "GPU resources only work with the Mesos containerizer");
    }
}

void CheckContainerRules(const Json& app, const std::string& prefix, Json& details) {
    const auto container = app.find("container");
    if (container == app.end() || !container->is_object()) {
        return;
    }
    const auto docker = container->find("docker");
    if (container->value("type", "DOCKER") == "MESOS" && docker != container->end() && docker->is_object()) {
        for (const char* field : {"network", "parameters", "portMappings", "credential"}) {
            if (docker->contains(field)) {
                AddDetail(
                    details,
                    prefix + "/container/docker/" + field,
                    std::string("must be empty: '") + field + "' is only supported by the Docker containerizer"
                );
            }
        }
    }
    if (docker != container->end() && docker->is_object() && docker->contains("network") && app.contains("networks")) {
        AddDetail(details, prefix + "/networks", "networks and container.docker.network are mutually exclusive");
    }
}

void CheckNetworkRules(const Json& app, const std::string& prefix, Json& details) {
    const std::string mode = NetworkMode(app);
    const auto container = app.find("container");
    const bool has_container = container != app.end() && container->is_object();
    if (mode == "host" && app["networks"].size() > 1) {
        AddDetail(details, prefix + "/networks", "host networking may not be combined with other networks");
    }
    if ((mode == "container" || mode == "container/bridge") && !has_container) {
        AddDetail(details, prefix + "/networks", "container networking needs a container");
    }
    const bool container_networking = mode == "container" || mode == "container/bridge";
    if (container_networking && app.contains("portDefinitions") && !app["portDefinitions"].empty()) {
        AddDetail(details, prefix + "/portDefinitions", "portDefinitions are only allowed with host networking");
    }
    if (mode == "host" && has_container && container->contains("portMappings") &&
        !(*container)["portMappings"].empty()) {
        AddDetail(details, prefix + "/container/portMappings", "portMappings are not allowed with host networking");
    }
}

void CheckCommand(const Json& app, const std::string& prefix, Json& details) {
    if (!app.contains("cmd") && !app.contains("args") && !app.contains("container")) {
        AddDetail(
            details,
            prefix.empty() ? "/" : prefix,
            "AppDefinition must either contain one of 'cmd' or 'args', and/or a 'container'."
        );
    }
}

}  // namespace

SimResponse MarathonError(int status, const std::string& message, Json details) {
    Json body = {{"message", message}};
    if (!details.is_null()) {
        body["details"] = std::move(details);
    }
    return SimResponse::JsonBody(status, body);
}

std::string AbsoluteMarathonId(const std::string& id, const std::string& parent) {
    if (!id.empty() && id.front() == '/') {
        return id;
    }
    return (parent == "/" ? std::string() : parent) + "/" + id;
}

Json ValidateMarathonApp(
    const SimConfig& config, const SchemaSet& schemas, const Json& app, const std::string& prefix
) {
    Json details = SchemaDetails(schemas, "AppDefinition.json", app, prefix);
    if (!details.empty() || !app.is_object()) {
        return details;
    }
    CheckGpuRules(config, app, prefix, details);
    CheckContainerRules(app, prefix, details);
    CheckNetworkRules(app, prefix, details);
    CheckCommand(app, prefix, details);
    return details;
}

Json ValidateMarathonGroup(const SimConfig& config, const SchemaSet& schemas, const Json& group) {
    Json details = SchemaDetails(schemas, "Group.json", group, "");
    if (!details.empty()) {
        return details;
    }
    const std::string group_id = AbsoluteMarathonId(group.value("id", ""), "/");
    std::set<std::string> seen;
    const Json apps = group.value("apps", Json::array());
    for (std::size_t i = 0; i < apps.size(); ++i) {
        const std::string prefix = "/apps(" + std::to_string(i) + ")";
        for (auto& d : ValidateMarathonApp(config, schemas, apps[i], prefix)) {
            details.push_back(d);
        }
        const std::string id = AbsoluteMarathonId(apps[i].value("id", ""), group_id);
        if (!seen.insert(id).second) {
            AddDetail(details, prefix + "/id", "duplicate app id " + id);
        }
        if (id.rfind(group_id + "/", 0) != 0) {
            AddDetail(details, prefix + "/id", "app id " + id + " is not inside group " + group_id);
        }
    }
    return details;
}

}  // namespace orch::sim
