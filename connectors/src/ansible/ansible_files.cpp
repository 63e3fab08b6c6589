#include "ansible_files.hpp"

#include "common/json_text.hpp"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <set>
#include <sstream>

namespace orch::connectors::ansible {
namespace {

std::string Identifier(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        out.push_back(std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_');
    }
    return out;
}

bool IsIpAddress(const std::string& address) {
    in_addr v4{};
    in6_addr v6{};
    return inet_pton(AF_INET, address.c_str(), &v4) == 1 || inet_pton(AF_INET6, address.c_str(), &v6) == 1;
}

void WriteUnsafe(const Json& value, std::string& out) {
    if (value.is_string()) {
        out += "!unsafe " + JsonQuote(value.get<std::string>());
    } else if (value.is_array()) {
        out += '[';
        bool first = true;
        for (const auto& item : value) {
            out += first ? "" : ", ";
            first = false;
            WriteUnsafe(item, out);
        }
        out += ']';
    } else if (value.is_object()) {
        out += '{';
        bool first = true;
        for (const auto& [key, item] : value.items()) {
            out += first ? "" : ", ";
            first = false;
            out += JsonQuote(key) + ": ";
            WriteUnsafe(item, out);
        }
        out += '}';
    } else {
        out += value.dump();  // numbers, booleans, null: the same in YAML
    }
}

}  // namespace

std::string UnsafeYaml(const Json& value) {
    std::string out;
    WriteUnsafe(value, out);
    return out;
}

std::string GroupName(const std::string& node) {
    return "orch_" + Identifier(node);
}

std::string HostName(const ContextHost& host) {
    return "orch_" + Identifier(host.node) + "_" + std::to_string(host.index);
}

bool IsRoleName(std::string_view name) {
    if (name.empty() || name.size() > 200 || name.front() == '.') {
        return false;
    }
    for (const char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '.' && c != '-') {
            return false;
        }
    }
    return name.find("..") == std::string_view::npos;
}

ConnectorResult<std::string> InventoryText(const ContextPlan& plan, const std::string& key_file) {
    Json groups = Json::object();
    for (const auto& host : plan.hosts) {
        if (!IsIpAddress(host.address) || host.port <= 0 || host.port > 65535) {
            return Failure{
                FailureKind::kTryAnotherSite,
                "server " + host.node + "-" + std::to_string(host.index) + " has no usable address",
            };
        }
        groups[GroupName(host.node)]["hosts"][HostName(host)] = {
            {"ansible_host", host.address},
            {"ansible_port", host.port},
        };
    }
    Json inventory = {
        {"all",
         {{"vars",
           {{"ansible_user", plan.ssh_user},
            {"ansible_ssh_private_key_file", key_file},
            {"ansible_python_interpreter", "auto_silent"}}},
          {"children", groups}}},
    };
    return inventory.dump(2);
}

std::string PlaybookText(const ContextStep& step, const std::string& vars_file) {
    std::ostringstream out;
    out << "- name: " << JsonQuote("configure " + Identifier(step.node)) << "\n"
        << "  hosts: " << JsonQuote(GroupName(step.host_node)) << "\n"
        << "  gather_facts: false\n"
        << "  vars_files:\n    - " << JsonQuote(vars_file) << "\n"
        << "  roles:\n";
    for (const auto& role : step.roles) {
        out << "    - role: " << JsonQuote(role) << "\n";
    }
    return out.str();
}

ConnectorResult<std::string> InterfacePlaybookText(
    const ContextStep& step,
    const ContextPlaybook& playbook,
    const std::string& text,
    const std::vector<std::string>& vars_files
) {
    // The play keys kept as written; everything else (hosts, connection, vars_files,
    // import_playbook, delegate-all settings) is replaced or refused.
    static const std::set<std::string> kKept = {
        "name",
        "tasks",
        "pre_tasks",
        "post_tasks",
        "roles",
        "handlers",
        "vars",
        "become",
        "become_user",
        "gather_facts",
        "environment",
        "any_errors_fatal",
        "ignore_errors",
        "serial",
        "tags",
        "strategy"};
    const std::string what = "the " + playbook.operation + " playbook of node '" + step.node + "'";
    YAML::Node plays;
    try {
        plays = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        return Failure{FailureKind::kUserError, what + " is not YAML: " + e.msg};
    }
    if (!plays.IsSequence() || plays.size() == 0) {
        return Failure{FailureKind::kUserError, what + " is not a list of plays"};
    }
    YAML::Node out(YAML::NodeType::Sequence);
    for (const auto& play : plays) {
        if (!play.IsMap()) {
            return Failure{FailureKind::kUserError, what + " has a play that is not a mapping"};
        }
        YAML::Node rewritten(YAML::NodeType::Map);
        rewritten["hosts"] = GroupName(step.host_node);
        for (const auto& entry : play) {
            const std::string key = entry.first.as<std::string>("");
            if (key == "hosts" || key == "connection" || key == "vars_files") {
                continue;
            }
            if (kKept.count(key) == 0) {
                return Failure{
                    FailureKind::kUserError, what + ": '" + key.substr(0, 64) + "' is not allowed in a play"};
            }
            rewritten[key] = entry.second;
        }
        YAML::Node files(YAML::NodeType::Sequence);
        for (const auto& file : vars_files) {
            files.push_back(file);
        }
        rewritten["vars_files"] = files;
        out.push_back(rewritten);
    }
    YAML::Emitter emitter;
    emitter << out;
    if (!emitter.good()) {
        return Failure{FailureKind::kUserError, what + " cannot be written back: " + emitter.GetLastError()};
    }
    return std::string(emitter.c_str()) + "\n";
}

std::string AnsibleFailure(const std::string& output, std::size_t cap) {
    std::string found;
    std::string last;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        last = line;
        if (line.rfind("fatal: [", 0) == 0 || line.find("UNREACHABLE!") != std::string::npos ||
            line.rfind("ERROR!", 0) == 0 || line.rfind("failed: [", 0) == 0) {
            found += (found.empty() ? "" : "\n") + line;
        }
    }
    std::string text = found.empty() ? last : found;
    if (text.size() > cap) {
        text = text.substr(0, cap) + " [...]";
    }
    return text;
}

}  // namespace orch::connectors::ansible
