#include "ansible_files.hpp"

#include "common/json_text.hpp"

#include <arpa/inet.h>

#include <cctype>
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
