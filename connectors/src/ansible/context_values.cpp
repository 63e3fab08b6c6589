#include "connectors/contextualiser.hpp"
#include "tosca/outputs.hpp"

namespace orch::connectors {
namespace {

constexpr int kMaxDepth = 32;  // deeper values are not expressions the engine would have kept

bool ReadsAttributes(const Json& value, int depth = 0) {
    if (depth > kMaxDepth) {
        return false;
    }
    if (value.is_object()) {
        if (value.contains("get_attribute")) {
            return true;
        }
        for (const auto& item : value) {
            if (ReadsAttributes(item, depth + 1)) {
                return true;
            }
        }
    } else if (value.is_array()) {
        for (const auto& item : value) {
            if (ReadsAttributes(item, depth + 1)) {
                return true;
            }
        }
    }
    return false;
}

/// The expression with SELF and HOST named: evaluated like an output, which has neither.
Json Named(Json value, const ContextStep& step, int depth = 0) {
    if (depth > kMaxDepth) {
        return value;
    }
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            Json& item = it.value();
            if (it.key() == "get_attribute" && item.is_array() && !item.empty() && item[0].is_string()) {
                if (item[0] == "SELF") {
                    item[0] = step.node;
                } else if (item[0] == "HOST") {
                    item[0] = step.host_node;
                }
            }
            item = Named(std::move(item), step, depth + 1);
        }
    } else if (value.is_array()) {
        for (auto& item : value) {
            item = Named(std::move(item), step, depth + 1);
        }
    }
    return value;
}

/// The deployment's attributes by node; a node hosted on a server reads its server's (as IM
/// answers a software node's private_address with its VM's).
tosca::NodeAttributes Attributes(const tosca::DeploymentSpec& spec, const Observation& observation) {
    tosca::NodeAttributes attributes(observation.attributes.begin(), observation.attributes.end());
    // A site that reports addresses per instance only: the node's are its instances' together.
    for (const auto& instance : observation.instances) {
        if (observation.attributes.count(instance.node) != 0 || !instance.attributes.is_object()) {
            continue;
        }
        Json& node = attributes[instance.node];
        for (const auto& [key, value] : instance.attributes.items()) {
            for (const auto& item : value.is_array() ? value : Json::array({value})) {
                node[key].push_back(item);
            }
        }
    }
    for (const auto& node : spec.nodes) {
        const tosca::NodeSpec* host = &node;
        for (std::size_t hops = 0; host != nullptr && attributes.count(host->name) == 0 && hops <= spec.nodes.size();
             ++hops) {
            host = spec.FindNode(host->host_node);
        }
        if (host != nullptr && host != &node && attributes.count(host->name) != 0) {
            attributes[node.name] = attributes[host->name];
        }
    }
    return attributes;
}

}  // namespace

std::vector<std::string> EvaluateStepValues(
    const tosca::DeploymentSpec& spec, const Observation& observation, std::vector<ContextStep>& steps
) {
    // Every value reading attributes becomes an output of a copy of the spec (the nodes stay for
    // the property fallback), evaluated by the TOSCA engine's own output evaluation.
    tosca::DeploymentSpec probe = spec;
    probe.outputs.clear();
    std::vector<std::pair<Json*, std::string>> slots;
    const auto add = [&](Json& value, const ContextStep& step, const std::string& what) {
        if (ReadsAttributes(value)) {
            probe.outputs.push_back({std::to_string(slots.size()), "", Named(value, step), false});
            slots.emplace_back(&value, "node '" + step.node + "': " + what);
        }
    };
    for (auto& step : steps) {
        for (auto it = step.vars.begin(); it != step.vars.end(); ++it) {
            add(it.value(), step, "variable '" + it.key() + "'");
        }
        for (auto& playbook : step.playbooks) {
            for (auto it = playbook.inputs.begin(); it != playbook.inputs.end(); ++it) {
                add(it.value(), step, playbook.operation + " input '" + it.key() + "'");
            }
        }
    }
    std::vector<std::string> notes;
    if (slots.empty()) {
        return notes;
    }
    const auto evaluated = tosca::EvaluateOutputs(probe, Attributes(spec, observation));
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const std::string name = std::to_string(i);
        // Never the expression itself: a value the deployment cannot give is null, and said why.
        *slots[i].first = evaluated.values.value(name, Json());
        if (const auto note = evaluated.notes.find(name); note != evaluated.notes.end()) {
            notes.push_back(slots[i].second + " has no value: " + note->second);
        }
    }
    return notes;
}

}  // namespace orch::connectors
