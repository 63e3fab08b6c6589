#include "connectors/workload.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace orch::connectors {

bool HasType(const tosca::NodeSpec& node, std::string_view type) {
    return node.type == type ||
           std::find(node.type_chain.begin(), node.type_chain.end(), type) != node.type_chain.end();
}

std::vector<const tosca::NodeSpec*> NodesOfTypes(
    const tosca::DeploymentSpec& spec, std::initializer_list<std::string_view> types
) {
    std::vector<const tosca::NodeSpec*> out;
    for (const auto& node : spec.nodes) {
        if (std::any_of(types.begin(), types.end(), [&](std::string_view t) { return HasType(node, t); })) {
            out.push_back(&node);
        }
    }
    return out;
}

ConnectorResult<std::vector<const tosca::NodeSpec*>> DependencyOrder(const std::vector<const tosca::NodeSpec*>& nodes) {
    std::map<std::string, const tosca::NodeSpec*> by_name;
    for (const auto* node : nodes) {
        by_name[node->name] = node;
    }
    std::vector<const tosca::NodeSpec*> out;
    std::set<std::string> done;
    std::set<std::string> visiting;
    // Depth-first, bounded by the node count; `visiting` catches cycles.
    std::function<std::optional<std::string>(const tosca::NodeSpec*)> visit = [&](const tosca::NodeSpec* node
                                                                              ) -> std::optional<std::string> {
        if (done.count(node->name) != 0) {
            return std::nullopt;
        }
        if (!visiting.insert(node->name).second) {
            return node->name;
        }
        for (const auto& dep : node->depends_on) {
            if (const auto it = by_name.find(dep); it != by_name.end()) {
                if (auto cycle = visit(it->second)) {
                    return cycle;
                }
            }
        }
        visiting.erase(node->name);
        done.insert(node->name);
        out.push_back(node);
        return std::nullopt;
    };
    for (const auto* node : nodes) {
        if (auto cycle = visit(node)) {
            return Failure{FailureKind::kUserError, "node " + *cycle + " depends on itself through its dependencies"};
        }
    }
    return out;
}

std::string ShellJoin(const std::string& command, const std::vector<std::string>& arguments) {
    std::string out = command;
    for (const auto& arg : arguments) {
        std::string quoted = "'";
        for (const char c : arg) {
            quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        }
        quoted += "'";
        out += (out.empty() ? "" : " ") + quoted;
    }
    return out;
}

std::string GpuModelRegex(const std::string& model) {
    std::string body;
    for (const char c : model) {
        if (c == ' ' || c == '-' || c == '_') {
            body += "[-_ ]?";
        } else if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
            body += std::string("\\") + c;
        } else {
            body += c;
        }
    }
    return "(?i).*" + body + ".*";
}

std::string OptionString(const SiteTarget& target, const std::string& key, const std::string& fallback) {
    const auto it = target.options.find(key);
    return it != target.options.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool OptionBool(const SiteTarget& target, const std::string& key, bool fallback) {
    const auto it = target.options.find(key);
    if (it == target.options.end()) {
        return fallback;
    }
    if (it->is_boolean()) {
        return it->get<bool>();
    }
    if (it->is_string()) {
        return *it == "true" || *it == "True";
    }
    return fallback;
}

std::vector<std::string> OptionList(const SiteTarget& target, const std::string& key) {
    std::vector<std::string> out;
    const auto it = target.options.find(key);
    if (it == target.options.end() || !it->is_array()) {
        return out;
    }
    for (const auto& item : *it) {
        if (item.is_string()) {
            out.push_back(item.get<std::string>());
        }
    }
    return out;
}

std::string PropertyString(const tosca::NodeSpec& node, const std::string& key, const std::string& fallback) {
    const auto it = node.properties.find(key);
    return it != node.properties.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int PropertyInt(const tosca::NodeSpec& node, const std::string& key, int fallback) {
    const auto it = node.properties.find(key);
    if (it == node.properties.end()) {
        return fallback;
    }
    if (it->is_number_integer()) {
        return it->get<int>();
    }
    if (it->is_string()) {
        try {
            return std::stoi(it->get<std::string>());
        } catch (const std::exception&) {
            return fallback;
        }
    }
    return fallback;
}

}  // namespace orch::connectors
