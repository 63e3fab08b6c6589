#include "connectors/contextualiser.hpp"
#include "connectors/openstack_server.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace orch::connectors {
namespace {

constexpr std::string_view kGalaxyRoleType = "tosca.artifacts.AnsibleGalaxy.role";

// "indigo-dc.docker,v1.2" names the role indigo-dc.docker at version v1.2; the role directory is
// the name alone.
std::vector<std::string> Roles(const tosca::NodeSpec& node) {
    std::vector<std::string> roles;
    if (!node.artifacts.is_object()) {
        return roles;
    }
    for (const auto& [name, artifact] : node.artifacts.items()) {
        if (!artifact.is_object() || artifact.value("type", "") != kGalaxyRoleType) {
            continue;
        }
        const Json file = artifact.value("file", Json());
        if (file.is_string()) {
            const std::string text = file.get<std::string>();
            roles.push_back(text.substr(0, text.find(',')));
        }
    }
    return roles;
}

bool IsPlaybook(const std::string& implementation) {
    const auto ends = [&](std::string_view suffix) {
        return implementation.size() > suffix.size() &&
               implementation.compare(implementation.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends(".yml") || ends(".yaml");
}

// The node's lifecycle operations that Ansible runs, in lifecycle order.
std::vector<ContextPlaybook> Playbooks(const tosca::NodeSpec& node) {
    std::vector<ContextPlaybook> out;
    if (!node.operations.is_object()) {
        return out;
    }
    for (const char* operation : {"create", "configure", "start"}) {
        const auto it = node.operations.find(operation);
        if (it == node.operations.end() || !it->is_object()) {
            continue;
        }
        const Json impl = it->value("implementation", Json());
        if (!impl.is_string() || !IsPlaybook(impl.get<std::string>())) {
            continue;
        }
        const Json inputs = it->value("inputs", Json::object());
        out.push_back({operation, impl.get<std::string>(), inputs.is_object() ? inputs : Json::object()});
    }
    return out;
}

// Every node `node` needs configured first: what it is hosted on, depends on or connects to.
std::vector<std::string> Needs(const tosca::NodeSpec& node) {
    std::vector<std::string> needs = node.depends_on;
    if (!node.host_node.empty()) {
        needs.push_back(node.host_node);
    }
    for (const auto& requirement : node.requirements) {
        if (!requirement.node.empty()) {
            needs.push_back(requirement.node);
        }
    }
    return needs;
}

// The nodes `node` needs, directly or not (bounded by the node count: each is visited once).
std::set<std::string> AllNeeds(
    const tosca::NodeSpec& node, const std::map<std::string, const tosca::NodeSpec*>& by_name
) {
    std::set<std::string> seen;
    std::vector<const tosca::NodeSpec*> pending{&node};
    while (!pending.empty()) {
        const auto* current = pending.back();
        pending.pop_back();
        for (const auto& need : Needs(*current)) {
            const auto it = by_name.find(need);
            if (it != by_name.end() && need != node.name && seen.insert(need).second) {
                pending.push_back(it->second);
            }
        }
    }
    return seen;
}

}  // namespace

ConnectorResult<std::vector<ContextStep>> BuildContextSteps(const tosca::DeploymentSpec& spec) {
    std::map<std::string, const tosca::NodeSpec*> by_name;
    for (const auto& node : spec.nodes) {
        by_name[node.name] = &node;
    }
    std::vector<const tosca::NodeSpec*> order;
    std::set<std::string> done;
    std::set<std::string> visiting;
    // Depth-first in template order, bounded by the node count; `visiting` catches cycles.
    std::function<std::optional<std::string>(const tosca::NodeSpec&)> visit = [&](const tosca::NodeSpec& node
                                                                              ) -> std::optional<std::string> {
        if (done.count(node.name) != 0) {
            return std::nullopt;
        }
        if (!visiting.insert(node.name).second) {
            return node.name;
        }
        for (const auto& need : Needs(node)) {
            if (const auto it = by_name.find(need); it != by_name.end()) {
                if (auto cycle = visit(*it->second)) {
                    return cycle;
                }
            }
        }
        visiting.erase(node.name);
        done.insert(node.name);
        order.push_back(&node);
        return std::nullopt;
    };
    for (const auto& node : spec.nodes) {
        if (auto cycle = visit(node)) {
            return Failure{
                FailureKind::kUserError, "the nodes depend on each other in a cycle (through '" + *cycle + "')"};
        }
    }
    std::vector<ContextStep> steps;
    for (const auto* node : order) {
        auto roles = Roles(*node);
        auto playbooks = Playbooks(*node);
        if (roles.empty() && playbooks.empty()) {
            continue;
        }
        // Follow HostedOn down to the Compute node (bounded: a chain longer than the node count
        // would be a cycle, which the ordering above refused).
        const tosca::NodeSpec* host = node;
        for (std::size_t hops = 0; host != nullptr && !IsVirtualMachineNode(*host) && hops <= spec.nodes.size();
             ++hops) {
            const auto it = by_name.find(host->host_node);
            host = it == by_name.end() ? nullptr : it->second;
        }
        if (host == nullptr || !IsVirtualMachineNode(*host)) {
            return Failure{
                FailureKind::kUserError,
                "node '" + node->name +
                    "' has Ansible roles or playbooks but is not hosted on a virtual machine (tosca.nodes.Compute)",
            };
        }
        ContextStep step{
            node->name, host->name, std::move(roles), spec.inputs.is_object() ? spec.inputs : Json::object()};
        if (node->properties.is_object()) {
            for (const auto& [key, value] : node->properties.items()) {
                step.vars[key] = value;
            }
        }
        step.playbooks = std::move(playbooks);
        steps.push_back(std::move(step));
    }
    std::set<std::string> with_steps;
    for (const auto& step : steps) {
        with_steps.insert(step.node);
    }
    for (auto& step : steps) {
        for (const auto& need : AllNeeds(*by_name.at(step.node), by_name)) {
            if (with_steps.count(need) != 0) {
                step.after.push_back(need);
            }
        }
    }
    return steps;
}

ConnectorResult<std::vector<ContextHost>> ContextHosts(const Observation& observation, int port) {
    std::vector<ContextHost> hosts;
    for (const auto& instance : observation.instances) {
        std::string address;
        for (const char* kind : {"public_address", "private_address"}) {
            const Json value = instance.attributes.value(kind, Json());
            if (value.is_array() && !value.empty() && value.front().is_string()) {
                address = value.front().get<std::string>();
                break;
            }
            if (value.is_string() && !value.get<std::string>().empty()) {
                address = value.get<std::string>();
                break;
            }
        }
        if (address.empty()) {
            return Failure{
                FailureKind::kRetryHere,
                "server " + instance.node + "-" + std::to_string(instance.index) + " has no address yet",
            };
        }
        hosts.push_back({instance.node, instance.index, std::move(address), port});
    }
    return hosts;
}

}  // namespace orch::connectors
