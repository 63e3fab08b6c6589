// TOSCA node -> Marathon app definition (after the Java MarathonServiceImpl mapping, with the
// GPU/containerizer rules Marathon 1.7 enforces and lowercase network modes).
#include "marathon/marathon_app_builder.hpp"

#include "connectors/marathon_connector.hpp"
#include "connectors/naming.hpp"
#include "connectors/workload.hpp"

#include <sstream>

namespace orch::connectors::marathon {
namespace {

std::vector<std::string> SplitColons(const std::string& text) {
    std::vector<std::string> parts;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ':');) {
        parts.push_back(part);
    }
    return parts;
}

std::string Mode(std::string mode) {
    for (auto& c : mode) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return mode == "RO" ? "RO" : "RW";
}

// "name:containerPath:mode:provider:driver" -> an external (e.g. dvdi/rexray) volume named after
// the deployment; "containerPath:mode" -> a host directory under the site's base path.
Json BuildVolumes(const tosca::NodeSpec& node, const std::string& app_segment, const DeployRequest& request) {
    Json volumes = Json::array();
    const std::string base = OptionString(request.target, "local_volumes_host_base_path", "/tmp/");
    for (std::size_t i = 0; i < node.volumes.size(); ++i) {
        const auto& v = node.volumes[i];
        const auto parts = SplitColons(v.raw);
        if (parts.size() == 5) {
            const std::string name = (request.deployment_id + "-" + parts[0]).substr(0, 255);
            volumes.push_back({
                {"containerPath", parts[1]},
                {"mode", Mode(parts[2])},
                {"external", {{"name", name}, {"provider", parts[3]}, {"options", {{parts[3] + "/driver", parts[4]}}}}},
            });
            continue;
        }
        const std::string container_path = v.container_path.empty() && !parts.empty() ? parts[0] : v.container_path;
        const std::string host_path = v.host_path.empty()
                                          ? base + request.deployment_id + "/" + app_segment + "-" + std::to_string(i)
                                          : v.host_path;
        volumes.push_back({{"containerPath", container_path}, {"hostPath", host_path}, {"mode", Mode(v.mode)}});
    }
    return volumes;
}

ConnectorResult<Json> BuildConstraints(const tosca::NodeSpec& node, const SiteTarget& target) {
    Json constraints = Json::array();
    for (const auto& c : node.constraints) {
        if (c.size() < 2 || c.size() > 3) {
            return Failure{
                FailureKind::kUserError,
                "node " + node.name + ": a Marathon constraint is [field, OPERATOR] or [field, OPERATOR, value]"};
        }
        constraints.push_back(c);
    }
    if (node.resources.gpu.count > 0 && !node.resources.gpu.model.empty()) {
        constraints.push_back(
            {OptionString(target, "gpu_attribute", "gpu_model"), "LIKE", GpuModelRegex(node.resources.gpu.model)}
        );
    }
    return constraints;
}

Json BuildHealthChecks(const tosca::NodeSpec& node) {
    Json checks = Json::array();
    const auto it = node.properties.find("health_checks");
    if (it == node.properties.end() || !it->is_array()) {
        return checks;
    }
    static const std::map<std::string, std::string> kFields = {
        {"protocol", "protocol"},
        {"path", "path"},
        {"port_index", "portIndex"},
        {"grace_period_seconds", "gracePeriodSeconds"},
        {"interval_seconds", "intervalSeconds"},
        {"timeout_seconds", "timeoutSeconds"},
        {"max_consecutive_failures", "maxConsecutiveFailures"},
    };
    for (const auto& check : *it) {
        if (!check.is_object()) {
            continue;
        }
        Json out = Json::object();
        for (const auto& [tosca_name, marathon_name] : kFields) {
            if (check.contains(tosca_name)) {
                out[marathon_name] = check[tosca_name];
            }
        }
        if (check.contains("command")) {
            out["command"] = {{"value", check["command"]}};
        }
        checks.push_back(out);
    }
    return checks;
}

void AddPorts(const tosca::NodeSpec& node, bool gpu, Json& app, Json& container) {
    Json list = Json::array();
    for (const auto& port : node.ports) {
        Json entry = {{"protocol", port.protocol == "udp" ? "udp" : "tcp"}};
        if (!port.name.empty()) {
            entry["name"] = Dns1035Label(port.name);
        }
        if (gpu) {
            entry["port"] = port.published.value_or(0);
        } else {
            entry["containerPort"] = port.target;
            entry["hostPort"] = 0;
            entry["servicePort"] = port.published.value_or(0);
        }
        list.push_back(entry);
    }
    if (gpu) {
        app["networks"] = Json::array({{{"mode", "host"}}});
        app["portDefinitions"] = list;
    } else {
        app["networks"] = Json::array({{{"mode", "container/bridge"}}});
        container["portMappings"] = list;
    }
}

Json BuildLabels(const tosca::NodeSpec& node) {
    Json labels = Json::object();
    for (const auto& [k, v] : node.labels) {
        labels[k] = v;
    }
    if (!node.ports.empty()) {
        labels["HAPROXY_GROUP"] = "external";
    }
    const auto https = node.properties.find("enable_https");
    if (https != node.properties.end() && https->is_boolean() && https->get<bool>()) {
        for (std::size_t i = 0; i < node.ports.size(); ++i) {
            const std::string prefix = "HAPROXY_" + std::to_string(i);
            labels[prefix + "_BACKEND_HEAD"] =
                "\nbackend {backend}\n  balance {balance}\n  mode http\n  http-request add-header X-Forwarded-Proto "
                "https\n";
            labels[prefix + "_SSL_CERT"] = "/etc/ssl/cert.pem";
        }
    }
    return labels;
}

}  // namespace

std::map<std::string, std::string> AppIds(const tosca::DeploymentSpec& spec) {
    std::vector<std::string> names;
    for (const auto* node : NodesOfTypes(spec, {kMarathonAppType})) {
        names.push_back(node->name);
    }
    const auto ids = UniqueNames(
        names, [](std::string_view n) { return MarathonIdSegment(n); }, 63
    );
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out[names[i]] = ids[i];
    }
    return out;
}

ConnectorResult<Json> BuildApp(const tosca::NodeSpec& node, const std::string& app_id, const DeployRequest& request) {
    if (node.image.empty()) {
        return Failure{FailureKind::kUserError, "node " + node.name + " has no container image (artifact 'image')"};
    }
    const auto secrets = node.properties.find("secrets");
    if (secrets != node.properties.end() && secrets->is_object() && !secrets->empty()) {
        return Failure{
            FailureKind::kUserError, "node " + node.name + ": Marathon secrets are not supported by this orchestrator"};
    }
    const int gpus = node.resources.gpu.count;
    if (gpus > 0 && !OptionBool(request.target, "gpu_support", true)) {
        return Failure{
            FailureKind::kTryAnotherSite, "Marathon on site " + request.target.site_id + " has no GPU support"};
    }
    Json app = {{"id", app_id}, {"instances", std::max(0, node.count)}};
    if (node.resources.cpus) {
        app["cpus"] = *node.resources.cpus;
    }
    if (node.resources.mem_mb) {
        app["mem"] = static_cast<double>(*node.resources.mem_mb);
    }
    if (node.resources.disk_mb) {
        app["disk"] = static_cast<double>(*node.resources.disk_mb);
    }
    if (gpus > 0) {
        app["gpus"] = gpus;
    }
    if (!node.command.empty()) {
        app["cmd"] = ShellJoin(node.command, node.arguments);
    } else if (!node.arguments.empty()) {
        app["args"] = node.arguments;
    }
    app["env"] = Json(node.environment);
    app["labels"] = BuildLabels(node);
    ORCH_CONNECTOR_TRY(Json constraints, BuildConstraints(node, request.target));
    app["constraints"] = constraints;
    // Only the Docker containerizer honours `privileged`; Marathon rejects Docker-only fields
    // (network, portMappings, parameters) under the Mesos containerizer that GPUs need.
    Json docker = {{"image", node.image}, {"forcePullImage", node.force_pull_image}};
    if (gpus == 0) {
        docker["privileged"] = node.privileged;
    }
    const std::string segment = app_id.substr(app_id.rfind('/') + 1);
    Json container = {
        {"type", gpus > 0 ? "MESOS" : "DOCKER"}, {"docker", docker}, {"volumes", BuildVolumes(node, segment, request)}};
    AddPorts(node, gpus > 0, app, container);
    app["container"] = container;
    if (Json checks = BuildHealthChecks(node); !checks.empty()) {
        app["healthChecks"] = checks;
    }
    if (const auto uris = node.properties.find("uris");
        uris != node.properties.end() && uris->is_array() && !uris->empty()) {
        Json fetch = Json::array();
        for (const auto& uri : *uris) {
            fetch.push_back({{"uri", uri}});
        }
        app["fetch"] = fetch;
    }
    if (const std::string user = PropertyString(node, "user"); !user.empty()) {
        app["user"] = user;
    }
    return app;
}

}  // namespace orch::connectors::marathon

namespace orch::connectors {

std::string MarathonGroupId(const std::string& deployment_id) {
    return "/" + MarathonIdSegment(deployment_id);
}

ConnectorResult<Json> BuildMarathonGroup(const DeployRequest& request) {
    if (request.spec == nullptr) {
        return Failure{FailureKind::kUserError, "no deployment spec"};
    }
    const std::string group = MarathonGroupId(request.deployment_id);
    const auto ids = marathon::AppIds(*request.spec);
    Json apps = Json::array();
    for (const auto* node : NodesOfTypes(*request.spec, {kMarathonAppType})) {
        ORCH_CONNECTOR_TRY(Json app, marathon::BuildApp(*node, group + "/" + ids.at(node->name), request));
        app["id"] = ids.at(node->name);  // relative inside the group body
        apps.push_back(app);
    }
    if (apps.empty()) {
        return Failure{FailureKind::kUserError, "the template has no Marathon application node"};
    }
    return Json{{"id", group}, {"apps", apps}};
}

}  // namespace orch::connectors
