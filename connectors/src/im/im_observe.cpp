#include "im/im_observe.hpp"

#include <map>

namespace orch::connectors::im {

InstanceStatus StatusOf(const std::string& im_state) {
    static const std::map<std::string, InstanceStatus, std::less<>> kStates = {
        {"pending", InstanceStatus::kCreating},
        {"running", InstanceStatus::kConfiguring},
        {"configured", InstanceStatus::kStarted},
        {"unconfigured", InstanceStatus::kError},
        {"failed", InstanceStatus::kError},
        {"stopped", InstanceStatus::kStopped},
        {"off", InstanceStatus::kStopped},
        {"deleting", InstanceStatus::kDeleting},
    };
    const auto it = kStates.find(im_state);
    return it != kStates.end() ? it->second : InstanceStatus::kUnknown;  // IM's own "unknown" too
}

namespace {

const Json* RadlList(const Json& info) {
    if (info.is_array()) {
        return &info;
    }
    if (info.is_object() && info.contains("radl") && info["radl"].is_array()) {
        return &info["radl"];
    }
    return nullptr;
}

std::string Text(const Json& object, const std::string& key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

VmRecord ReadVm(const Json& info) {
    VmRecord vm;
    const Json* radl = RadlList(info);
    if (radl == nullptr) {
        return vm;
    }
    std::map<std::string, bool> outbound;
    const Json* system = nullptr;
    for (const auto& entry : *radl) {
        if (!entry.is_object()) {
            continue;
        }
        const std::string kind = Text(entry, "class");
        if (kind == "network") {
            const auto flag = entry.find("outbound");
            outbound[Text(entry, "id")] =
                flag != entry.end() && ((flag->is_string() && *flag == "yes") || (flag->is_boolean() && *flag == true));
        } else if (kind == "system" && system == nullptr) {
            system = &entry;
        }
    }
    if (system == nullptr) {
        return vm;
    }
    vm.node = Text(*system, "id");
    vm.state = Text(*system, "state");
    Json public_ips = Json::array();
    Json private_ips = Json::array();
    for (int i = 0; i < 16; ++i) {
        const std::string prefix = "net_interface." + std::to_string(i) + ".";
        const std::string ip = Text(*system, prefix + "ip");
        if (ip.empty()) {
            continue;
        }
        (outbound[Text(*system, prefix + "connection")] ? public_ips : private_ips).push_back(ip);
    }
    vm.attributes["public_address"] = public_ips;
    vm.attributes["private_address"] = private_ips;
    vm.attributes["tosca_name"] = vm.node;
    if (const std::string instance = Text(*system, "instance_id"); !instance.empty()) {
        vm.attributes["tosca_id"] = instance;
    }
    return vm;
}

std::string LastLine(const std::string& contmsg) {
    std::size_t end = contmsg.size();
    while (end > 0 && (contmsg[end - 1] == '\n' || contmsg[end - 1] == ' ' || contmsg[end - 1] == '\r')) {
        --end;
    }
    if (end == 0) {
        return "";
    }
    const std::size_t start = contmsg.rfind('\n', end - 1);
    return start == std::string::npos ? contmsg.substr(0, end) : contmsg.substr(start + 1, end - start - 1);
}

std::string ReasonTail(const std::string& contmsg, std::size_t max) {
    std::string text = contmsg;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    if (text.size() <= max) {
        return text;
    }
    std::string tail = text.substr(text.size() - max);
    if (const auto newline = tail.find('\n'); newline != std::string::npos && newline + 1 < tail.size()) {
        tail = tail.substr(newline + 1);
    }
    return "..." + tail;
}

}  // namespace orch::connectors::im
