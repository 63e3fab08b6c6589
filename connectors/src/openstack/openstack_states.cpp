#include "openstack/openstack_states.hpp"

#include "connectors/openstack_server.hpp"

#include <algorithm>
#include <array>

namespace orch::connectors::openstack {
namespace {

std::string TaskState(const Json& server) {
    const auto it = server.find("OS-EXT-STS:task_state");
    return it != server.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The one map from Nova's status and task_state to instance statuses. Nova's other statuses
// (REBOOT, RESIZE, MIGRATING, REBUILD, ...) are transient work on a live server: CONFIGURING;
// a status word Nova does not document is kUnknown.
InstanceStatus StatusOf(const std::string& status, const std::string& task) {
    if (task == "deleting" || status == "DELETED" || status == "SOFT_DELETED") {
        return InstanceStatus::kDeleting;
    }
    if (status == "BUILD") {
        return InstanceStatus::kCreating;
    }
    if (status == "ACTIVE") {
        if (task.empty()) {
            return InstanceStatus::kStarted;
        }
        return task == "powering-off" ? InstanceStatus::kStopping : InstanceStatus::kConfiguring;
    }
    if (status == "SHUTOFF" || status == "PAUSED" || status == "SUSPENDED" || status.starts_with("SHELVED")) {
        return task == "powering-on" ? InstanceStatus::kStarting : InstanceStatus::kStopped;
    }
    if (status == "ERROR") {
        return InstanceStatus::kError;
    }
    constexpr std::array<std::string_view, 8> kBusy = {
        "REBOOT", "HARD_REBOOT", "RESIZE", "VERIFY_RESIZE", "REVERT_RESIZE", "MIGRATING", "REBUILD", "RESCUE"};
    const bool busy = std::find(kBusy.begin(), kBusy.end(), status) != kBusy.end() || status == "PASSWORD";
    return busy ? InstanceStatus::kConfiguring : InstanceStatus::kUnknown;
}

// Floating addresses and addresses outside the private ranges are public (provider networks
// hand out public addresses as "fixed").
Json Addresses(const Json& server) {
    Json attributes = {{"public_address", Json::array()}, {"private_address", Json::array()}};
    const auto addresses = server.find("addresses");
    if (addresses == server.end() || !addresses->is_object()) {
        return attributes;
    }
    for (const auto& [network, entries] : addresses->items()) {
        if (!entries.is_array()) {
            continue;
        }
        for (const auto& entry : entries) {
            const std::string addr = entry.is_object() ? entry.value("addr", "") : "";
            if (addr.empty()) {
                continue;
            }
            const bool is_public = entry.value("OS-EXT-IPS:type", "") == "floating" || IsPublicAddress(addr);
            attributes[is_public ? "public_address" : "private_address"].push_back(addr);
        }
    }
    return attributes;
}

std::string Fault(const Json& server) {
    const auto fault = server.find("fault");
    if (fault == server.end() || !fault->is_object()) {
        return "no fault recorded";
    }
    return fault->value("message", "no fault message");
}

}  // namespace

Json ToJson(const ServerRef& ref) {
    return {{"node", ref.node}, {"index", ref.index}, {"name", ref.name}, {"id", ref.id}};
}

ConnectorResult<std::vector<ServerRef>> ServerRefs(const Handle& handle) {
    const auto servers = handle.state.find("servers");
    if (servers == handle.state.end() || !servers->is_array()) {
        return Failure{FailureKind::kUserError, "handle of deployment " + handle.deployment_id + " lists no servers"};
    }
    std::vector<ServerRef> out;
    for (const auto& s : *servers) {
        if (!s.is_object() || !s.value("id", Json()).is_string()) {
            return Failure{FailureKind::kUserError, "handle of deployment " + handle.deployment_id + " is malformed"};
        }
        out.push_back({s.value("node", ""), s.value("index", 0), s.value("name", ""), s["id"].get<std::string>()});
    }
    return out;
}

Observation ObserveServers(const std::vector<ServerRef>& refs, const std::map<std::string, Json>& live) {
    Observation obs;
    const ServerRef* errored = nullptr;
    const ServerRef* vanished = nullptr;
    const ServerRef* busy = nullptr;
    std::string busy_word;
    std::size_t present = 0;
    std::size_t deleting = 0;
    for (const auto& ref : refs) {
        InstanceState instance{ref.node, ref.index, ref.id, InstanceStatus::kDeleted, Json::object()};
        auto& node_attributes = obs.attributes[ref.node];
        if (node_attributes.is_null()) {
            node_attributes = {
                {"public_address", Json::array()}, {"private_address", Json::array()}, {"server_ids", Json::array()}};
        }
        node_attributes["server_ids"].push_back(ref.id);
        const auto it = live.find(ref.id);
        if (it == live.end()) {
            vanished = vanished == nullptr ? &ref : vanished;
            obs.instances.push_back(std::move(instance));
            continue;
        }
        ++present;
        const Json& server = it->second;
        const std::string status = server.value("status", "UNKNOWN");
        const std::string task = TaskState(server);
        instance.state = StatusOf(status, task);
        instance.attributes = Addresses(server);
        for (const char* kind : {"public_address", "private_address"}) {
            for (const auto& addr : instance.attributes[kind]) {
                node_attributes[kind].push_back(addr);
            }
        }
        instance.attributes["status"] = status;
        instance.attributes["server_name"] = ref.name;
        if (instance.state == InstanceStatus::kDeleting) {
            ++deleting;
        } else if (status == "ERROR") {
            errored = errored == nullptr ? &ref : errored;
            instance.attributes["fault"] = Fault(server);
        } else if (!(task.empty() && (status == "ACTIVE" || status == "SHUTOFF")) && busy == nullptr) {
            busy = &ref;
            busy_word = status + (task.empty() ? "" : " (" + task + ")");
        }
        obs.instances.push_back(std::move(instance));
    }
    if (present == 0) {
        obs.phase = Phase::kGone;
        obs.reason = "no server of the deployment is left";
    } else if (deleting == present) {
        obs.phase = Phase::kInProgress;
        obs.reason = std::to_string(present) + " server(s) still being deleted";
    } else if (errored != nullptr) {
        obs.phase = Phase::kFailed;
        obs.failure = FailureKind::kTryAnotherSite;
        obs.reason = "server " + errored->name + " went to ERROR: " + Fault(live.at(errored->id));
    } else if (vanished != nullptr) {
        obs.phase = Phase::kFailed;
        obs.failure = FailureKind::kTryAnotherSite;
        obs.reason = "server " + vanished->name + " (" + vanished->id + ") no longer exists";
    } else if (busy != nullptr || deleting > 0) {
        obs.phase = Phase::kInProgress;
        obs.reason = busy != nullptr ? "server " + busy->name + " is " + busy_word : "servers are being deleted";
    } else {
        obs.phase = Phase::kReady;
        obs.reason = "every server is up";
    }
    return obs;
}

}  // namespace orch::connectors::openstack
