// TOSCA nodes -> Chronos jobs (after the Java ChronosServiceImpl mapping, with job names derived
// from the deployment id so a re-run finds what it created).
#include "connectors/chronos_connector.hpp"
#include "connectors/naming.hpp"
#include "connectors/workload.hpp"

#include <map>

namespace orch::connectors {
namespace {

constexpr char kRunOnceNow[] = "R1//PT24H";

Json Environment(const tosca::NodeSpec& node) {
    Json env = Json::array();
    for (const auto& [name, value] : node.environment) {
        env.push_back({{"name", name}, {"value", value}});
    }
    return env;
}

ConnectorResult<Json> Constraints(const tosca::NodeSpec& node, const SiteTarget& target) {
    Json out = Json::array();
    for (const auto& c : node.constraints) {
        if (c.size() != 3) {
            return Failure{
                FailureKind::kUserError,
                "node " + node.name + ": a Chronos constraint is [attribute, EQUALS|LIKE|UNLIKE, value]"};
        }
        const std::string op = c[1] == "CLUSTER" ? "EQUALS" : c[1];
        if (op != "EQUALS" && op != "LIKE" && op != "UNLIKE") {
            return Failure{
                FailureKind::kUserError,
                "node " + node.name + ": Chronos does not know the constraint operator " + c[1]};
        }
        out.push_back({c[0], op, c[2]});
    }
    if (node.resources.gpu.count > 0 && !node.resources.gpu.model.empty()) {
        out.push_back(
            {OptionString(target, "gpu_attribute", "gpu_model"), "LIKE", GpuModelRegex(node.resources.gpu.model)}
        );
    }
    return out;
}

Json Container(const tosca::NodeSpec& node, const std::string& job_name, const SiteTarget& target) {
    const bool gpu = node.resources.gpu.count > 0;
    Json container = {
        {"type", gpu ? "MESOS" : "DOCKER"}, {"image", node.image}, {"forcePullImage", node.force_pull_image}};
    Json volumes = Json::array();
    const std::string base = OptionString(target, "local_volumes_host_base_path", "/tmp/");
    for (std::size_t i = 0; i < node.volumes.size(); ++i) {
        const auto& v = node.volumes[i];
        const std::string host =
            v.host_path.empty() ? base + job_name + (i == 0 ? "" : "-" + std::to_string(i)) : v.host_path;
        volumes.push_back(
            {{"containerPath", v.container_path},
             {"hostPath", host},
             {"mode", v.mode == "RO" || v.mode == "ro" ? "RO" : "RW"}}
        );
    }
    container["volumes"] = volumes;
    if (node.privileged && !gpu) {
        container["parameters"] = Json::array({{{"key", "privileged"}, {"value", "true"}}});
    }
    return container;
}

ConnectorResult<Json> JobBody(const tosca::NodeSpec& node, const std::string& name, const DeployRequest& request) {
    if (node.command.empty()) {
        return Failure{FailureKind::kUserError, "Chronos job node " + node.name + " needs a command"};
    }
    if (node.image.empty()) {
        return Failure{FailureKind::kUserError, "node " + node.name + " has no container image (artifact 'image')"};
    }
    Json job = {
        {"name", name},
        {"command", ShellJoin(node.command, node.arguments)},
        {"shell", true},
        {"epsilon", PropertyString(node, "epsilon", "PT10S")},
        {"retries", std::max(0, PropertyInt(node, "retries", 2))},
        {"environmentVariables", Environment(node)},
        {"container", Container(node, name, request.target)},
    };
    ORCH_CONNECTOR_TRY(Json constraints, Constraints(node, request.target));
    job["constraints"] = constraints;
    if (node.resources.cpus) {
        job["cpus"] = *node.resources.cpus;
    }
    if (node.resources.mem_mb) {
        job["mem"] = static_cast<double>(*node.resources.mem_mb);
    }
    if (node.resources.disk_mb) {
        job["disk"] = static_cast<double>(*node.resources.disk_mb);
    }
    if (node.resources.gpu.count > 0) {
        job["gpus"] = node.resources.gpu.count;
    }
    if (const std::string description = PropertyString(node, "description"); !description.empty()) {
        job["description"] = description;
    }
    if (const std::string user = PropertyString(node, "user"); !user.empty()) {
        job["runAsUser"] = user;
    }
    if (const auto uris = node.properties.find("uris");
        uris != node.properties.end() && uris->is_array() && !uris->empty()) {
        Json fetch = Json::array();
        for (const auto& uri : *uris) {
            fetch.push_back({{"uri", uri}});
        }
        job["fetch"] = fetch;
    }
    return job;
}

}  // namespace

std::string ChronosJobName(const std::string& deployment_id, const std::string& node, int index, int count) {
    return ChronosName(deployment_id + "-" + node) + (count > 1 ? "." + std::to_string(index) : "");
}

ConnectorResult<std::vector<ChronosJobPlan>> BuildChronosJobs(const DeployRequest& request) {
    if (request.spec == nullptr) {
        return Failure{FailureKind::kUserError, "no deployment spec"};
    }
    ORCH_CONNECTOR_TRY(
        std::vector<const tosca::NodeSpec*> order, DependencyOrder(NodesOfTypes(*request.spec, {kChronosJobType}))
    );
    if (order.empty()) {
        return Failure{FailureKind::kUserError, "the template has no Chronos job node"};
    }
    const bool gpu_support = OptionBool(request.target, "gpu_support", false);
    std::map<std::string, std::vector<std::string>> names;  // node -> its job names
    std::vector<ChronosJobPlan> plans;
    for (const auto* node : order) {
        if (node->resources.gpu.count > 0 && !gpu_support) {
            return Failure{
                FailureKind::kTryAnotherSite,
                "Chronos on site " + request.target.site_id + " does not support GPUs (node " + node->name + ")"};
        }
        Json parents = Json::array();
        for (const auto& dep : node->depends_on) {
            for (const auto& parent : names[dep]) {
                parents.push_back(parent);
            }
        }
        if (!parents.empty() && !node->schedule.empty()) {
            return Failure{
                FailureKind::kUserError, "Chronos job node " + node->name + " has both a schedule and a parent job"};
        }
        const int count = std::max(1, node->count);
        for (int i = 0; i < count; ++i) {
            const std::string name = ChronosJobName(request.deployment_id, node->name, i, count);
            ORCH_CONNECTOR_TRY(Json body, JobBody(*node, name, request));
            if (parents.empty()) {
                body["schedule"] = node->schedule.empty() ? kRunOnceNow : node->schedule;
            } else {
                body["parents"] = parents;
            }
            names[node->name].push_back(name);
            plans.push_back({node->name, i, !parents.empty(), std::move(body)});
        }
    }
    return plans;
}

}  // namespace orch::connectors
