#include "connectors/im_connector.hpp"

#include "common/log.hpp"
#include "common/scale_plan.hpp"
#include "connectors/im_auth.hpp"
#include "connectors/im_template.hpp"
#include "im/im_api.hpp"
#include "im/im_observe.hpp"

#include <algorithm>
#include <map>

namespace orch::connectors {
namespace {

constexpr const char* kInfrastructure = "im_infrastructure";
constexpr const char* kEndpoint = "im_endpoint";
constexpr const char* kVmIndex = "im_vm_index";

// An id IM gave that can go into a URL path as it is (IM's ids are uuids or small integers).
bool PlainId(const std::string& id) {
    if (id.empty() || id.size() > 128) {
        return false;
    }
    for (const char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '_' || c == '.';
        if (!ok) {
            return false;
        }
    }
    return id != "." && id != "..";
}

std::string StateText(const Handle& handle, const char* key) {
    const auto it = handle.state.find(key);
    return it != handle.state.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// Contextualisation text (bounded to its tail): {"contmsg": "..."} or plain text.
std::string ContMsg(im::ImApi& api, const std::string& id, std::size_t max) {
    auto got = api.Get("/infrastructures/" + id + "/contmsg");
    const auto* response = std::get_if<RestResponse>(&got);
    if (response == nullptr || !response->Ok()) {
        return {};
    }
    std::string text = response->body;
    if (auto parsed = ParseJson(text); parsed && parsed->is_object() && (*parsed)["contmsg"].is_string()) {
        text = (*parsed)["contmsg"].get<std::string>();
    }
    return text.size() > max ? text.substr(text.size() - max) : text;
}

// VM ids in the order IM made them (its ids are growing integers; "10" comes after "9").
std::vector<std::string> VmIdsInOrder(const Json& vm_states) {
    std::vector<std::string> ids;
    for (const auto& item : vm_states.items()) {
        ids.push_back(item.key());
    }
    std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    return ids;
}

/// Reads every VM's record (bounded) into instances bound to TOSCA nodes by the system id. A
/// VM the handle already numbered (`known`: {vm id: {"node", "index"}}, kept by an update)
/// keeps its instance index, so the deployment's resources stay bound to the same VMs after a
/// scale in; the others take the next indexes of their node, in creation order.
std::optional<Failure> ReadVms(
    im::ImApi& api, const std::string& id, const Json& vm_states, const Json& known, std::size_t max, Observation& obs
) {
    std::map<std::string, int> next_index;
    for (const auto& [vm_id, entry] : known.items()) {
        const std::string node = entry.value("node", "");
        next_index[node] = std::max(next_index[node], entry.value("index", 0) + 1);
    }
    std::size_t read = 0;
    for (const auto& vm_id : VmIdsInOrder(vm_states)) {
        if (++read > max) {
            break;
        }
        if (!PlainId(vm_id)) {
            continue;  // not an id IM makes; never put it into a path
        }
        ORCH_CONNECTOR_TRY(Json info, api.GetJson("/infrastructures/" + id + "/vms/" + vm_id, "reading a VM"));
        im::VmRecord vm = im::ReadVm(info);
        if (vm.node.empty()) {
            continue;  // a VM IM has not described yet; the next poll binds it
        }
        InstanceState instance;
        instance.node = vm.node;
        const auto numbered = known.find(vm_id);
        instance.index = numbered != known.end() && numbered->value("node", "") == vm.node ? numbered->value("index", 0)
                                                                                           : next_index[vm.node]++;
        instance.physical_id = vm_id;
        const Json& vm_state = vm_states[vm_id];
        instance.state = im::StatusOf(vm_state.is_string() ? vm_state.get<std::string>() : vm.state);
        instance.attributes = vm.attributes;
        Json& node = obs.attributes[vm.node];
        if (!node.is_array()) {
            node = Json::array();
        }
        node.push_back(vm.attributes);
        obs.instances.push_back(std::move(instance));
    }
    return std::nullopt;
}

Json KnownVms(const Handle& handle) {
    const auto it = handle.state.find(kVmIndex);
    return it != handle.state.end() && it->is_object() ? *it : Json::object();
}

}  // namespace

bool IsImHandle(const Handle& handle) {
    return handle.state.is_object() && handle.state.contains(kInfrastructure);
}

ImConnector::ImConnector(SiteClientFactory& clients, ImOptions options)
    : clients_(clients), options_(std::move(options)) {}

std::string ImConnector::EndpointFor(const SiteTarget& target) const {
    const auto it = target.options.find("im_endpoint");
    if (it != target.options.end() && it->is_string() && !it->get<std::string>().empty()) {
        return it->get<std::string>();
    }
    return options_.endpoint;
}

namespace {

ConnectorResult<im::ImApi> ApiFor(
    SiteClientFactory& clients, const ImOptions& options, const SiteTarget& target, const std::string& endpoint
) {
    if (endpoint.empty()) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "site " + target.site_id +
                " is to be reached through IM, "
                "but no IM endpoint is configured (im.endpoint)"};
    }
    // IM is one service of ours, not the site: its client is the shared one.
    ORCH_CONNECTOR_TRY(auto client, clients.ClientFor(SiteTarget{}));
    ORCH_CONNECTOR_TRY(std::string authorization, ImAuthorization(target, options.username, options.password));
    return im::ImApi(
        std::move(client),
        endpoint,
        std::move(authorization),
        CallOptions{options.call_timeout, options.max_response_bytes}
    );
}

}  // namespace

ConnectorResult<std::string> ImConnector::TemplateFor(const DeployRequest& request) const {
    const auto clues = options_.clues_clients.find(request.owner_issuer);
    return ImTemplate(
        request,
        options_.max_template_bytes,
        options_.orchestrator_url,
        clues != options_.clues_clients.end() && !request.owner_issuer.empty() ? &clues->second : nullptr
    );
}

ConnectorResult<std::string> ImConnector::SiteVersion(const SiteTarget& target) {
    return GuardJson(target.site_id, [&]() -> ConnectorResult<std::string> {
        ORCH_CONNECTOR_TRY(im::ImApi api, ApiFor(clients_, options_, target, EndpointFor(target)));
        ORCH_CONNECTOR_TRY(RestResponse r, api.Get("/version"));
        if (!r.Ok()) {
            return Failure{FailureKind::kRetryHere, "reading the IM version: HTTP " + std::to_string(r.status)};
        }
        // IM answers its version as text, or as {"version": ...} when JSON is asked for.
        const Json parsed = ParseJson(r.body, 16).value_or(Json());
        const auto it = parsed.is_object() ? parsed.find("version") : parsed.end();
        const bool named = parsed.is_object() && it != parsed.end() && it->is_string();
        std::string text = named ? it->get<std::string>() : r.body.substr(0, 64);
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
            text.pop_back();
        }
        return "IM " + BoundedVersion(text);
    });
}

ConnectorResult<Handle> ImConnector::Create(const DeployRequest& request) {
    ORCH_CONNECTOR_TRY(std::string tosca, TemplateFor(request));
    const std::string endpoint = EndpointFor(request.target);
    ORCH_CONNECTOR_TRY(im::ImApi api, ApiFor(clients_, options_, request.target, endpoint));
    ORCH_CONNECTOR_TRY(std::string id, api.Create(tosca));
    ORCH_LOG_INFO(
        "im infrastructure requested",
        {{"deployment_id", request.deployment_id}, {"site", request.target.site_id}, {"infrastructure", id}}
    );
    Handle handle;
    handle.deployment_id = request.deployment_id;
    handle.physical_id = id;
    handle.target = request.target;
    handle.state = {{kInfrastructure, id}, {kEndpoint, endpoint}};
    return handle;
}

ConnectorResult<Observation> ImConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& /*spec*/) {
    return GuardJson(handle.target.site_id, [&]() -> ConnectorResult<Observation> {
        const std::string id = StateText(handle, kInfrastructure);
        ORCH_CONNECTOR_TRY(im::ImApi api, ApiFor(clients_, options_, handle.target, StateText(handle, kEndpoint)));
        ORCH_CONNECTOR_TRY(RestResponse response, api.Get("/infrastructures/" + id + "/state"));
        Observation obs;
        if (response.status == 404) {
            obs.phase = Phase::kGone;
            obs.reason = "IM no longer knows infrastructure " + id;
            return obs;
        }
        if (!response.Ok()) {
            return api.StatusFailure(response, "reading the infrastructure state");
        }
        auto parsed = ParseJson(response.body);
        if (!parsed || !parsed->is_object() || !(*parsed)["state"].is_object()) {
            return Failure{FailureKind::kRetryHere, "IM answered the state call with an unexpected document"};
        }
        const Json& state = (*parsed)["state"];
        const std::string aggregate = state.value("state", "unknown");
        if (aggregate == "deleting") {
            obs.reason = "IM is deleting infrastructure " + id;
            return obs;  // its VM records are already gone
        }
        const Json vm_states = state.value("vm_states", Json::object());
        if (auto failed = ReadVms(
                api,
                id,
                vm_states.is_object() ? vm_states : Json::object(),
                KnownVms(handle),
                options_.max_vms_per_poll,
                obs
            )) {
            return *failed;
        }
        obs.log = ContMsg(api, id, options_.max_log_bytes);
        if (aggregate == "configured") {
            ORCH_CONNECTOR_TRY(Json outputs, api.GetJson("/infrastructures/" + id + "/outputs", "reading the outputs"));
            obs.outputs = outputs.is_object() && outputs.contains("outputs") ? outputs["outputs"] : Json::object();
            obs.phase = Phase::kReady;
        } else if (aggregate == "failed" || aggregate == "unconfigured") {
            obs.phase = Phase::kFailed;
            obs.failure = FailureKind::kTryAnotherSite;
            const std::string tail = im::ReasonTail(obs.log);
            obs.reason = "IM infrastructure " + id + " is " + aggregate + (tail.empty() ? "" : ": " + tail);
        } else {
            obs.phase = Phase::kInProgress;
            obs.reason = "IM infrastructure " + id + " is " + aggregate;
            // IM's latest contextualisation line ("Contextualizing docker", "VM 1 (front) is
            // running") is what it is doing now: the statusReason and a site_message event.
            if (std::string last = im::ReasonTail(im::LastLine(obs.log)); !last.empty()) {
                obs.site_message = std::move(last);
            }
        }
        return obs;
    });
}

namespace {

struct VmRef {
    std::string node;
    int index = 0;
    std::string id;
};

// The VMs IM has for the infrastructure now, numbered as the handle numbers them.
ConnectorResult<std::vector<VmRef>> CurrentVms(
    im::ImApi& api, const Handle& handle, const std::string& id, std::size_t max
) {
    ORCH_CONNECTOR_TRY(
        Json state, api.GetJson("/infrastructures/" + id + "/state", "reading the infrastructure state")
    );
    const Json vm_states = state.is_object() && state["state"].is_object()
                               ? state["state"].value("vm_states", Json::object())
                               : Json::object();
    Observation obs;
    if (auto failed =
            ReadVms(api, id, vm_states.is_object() ? vm_states : Json::object(), KnownVms(handle), max, obs)) {
        return *failed;
    }
    std::vector<VmRef> out;
    out.reserve(obs.instances.size());
    for (const auto& instance : obs.instances) {
        out.push_back(VmRef{instance.node, instance.index, instance.physical_id});
    }
    return out;
}

}  // namespace

// As the original's doUpdate: the VMs to go (removal_list, lowered counts, nodes no longer in
// the template) are removed with one DELETE .../vms/<id,id>, then the new TOSCA is POSTed to the
// infrastructure, IM adding what the counts lack. The update poll follows to configured.
ConnectorResult<Handle> ImConnector::Update(const Handle& handle, const DeployRequest& request) {
    return GuardJson(request.target.site_id, [&]() -> ConnectorResult<Handle> {
        const std::string id = StateText(handle, kInfrastructure);
        if (id.empty() || request.spec == nullptr) {
            return Failure{FailureKind::kUserError, "the deployment has no IM infrastructure to update"};
        }
        ORCH_CONNECTOR_TRY(std::string tosca, TemplateFor(request));
        ORCH_CONNECTOR_TRY(im::ImApi api, ApiFor(clients_, options_, handle.target, StateText(handle, kEndpoint)));
        ORCH_CONNECTOR_TRY(std::vector<VmRef> current, CurrentVms(api, handle, id, options_.max_vms_per_poll));
        std::vector<const tosca::NodeSpec*> nodes;
        for (const auto& node : request.spec->nodes) {
            nodes.push_back(&node);
        }
        const auto plan = PlanScale(std::move(current), nodes, [](const VmRef& vm) { return vm.id; });
        if (!plan.surplus.empty()) {
            std::string ids;
            for (const auto& vm : plan.surplus) {
                ids += (ids.empty() ? "" : ",") + vm.id;
            }
            ORCH_CONNECTOR_TRY(RestResponse removed, api.Send("DELETE", "/infrastructures/" + id + "/vms/" + ids));
            if (!removed.Ok()) {
                return api.StatusFailure(removed, "removing VMs " + ids);
            }
        }
        ORCH_CONNECTOR_TRY(RestResponse added, api.SendYaml("POST", "/infrastructures/" + id, tosca));
        if (!added.Ok()) {
            return api.StatusFailure(added, "adding resources");
        }
        ORCH_LOG_INFO(
            "im infrastructure updated",
            {{"deployment_id", request.deployment_id},
             {"infrastructure", id},
             {"removed_vms", static_cast<std::int64_t>(plan.surplus.size())}}
        );
        Handle updated = handle;
        Json known = Json::object();
        for (const auto& [node, vms] : plan.kept) {
            for (const auto& vm : vms) {
                known[vm.id] = {{"node", node}, {"index", vm.index}};
            }
        }
        updated.state[kVmIndex] = std::move(known);
        return updated;
    });
}

ConnectorResult<Deletion> ImConnector::Delete(const Handle& handle, bool force) {
    const std::string id = StateText(handle, kInfrastructure);
    if (id.empty()) {
        return Deletion::kComplete;  // Create never got an infrastructure
    }
    ORCH_CONNECTOR_TRY(im::ImApi api, ApiFor(clients_, options_, handle.target, StateText(handle, kEndpoint)));
    const std::string query = force ? "?async=true&force=true" : "?async=true";
    ORCH_CONNECTOR_TRY(RestResponse response, api.Send("DELETE", "/infrastructures/" + id + query));
    if (response.status == 404) {
        return Deletion::kComplete;
    }
    if (!response.Ok()) {
        return api.StatusFailure(response, "deleting the infrastructure");
    }
    return Deletion::kInProgress;
}

ConnectorResult<bool> ImConnector::Act(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    if (action != "start" && action != "stop") {
        return Failure{FailureKind::kUserError, "unknown action '" + action + "' (start or stop)"};
    }
    if (physical_id.empty() || physical_id.find_first_of("/?#%") != std::string::npos) {
        return Failure{FailureKind::kUserError, "'" + physical_id + "' is not a VM of this deployment"};
    }
    const std::string id = StateText(handle, kInfrastructure);
    ORCH_CONNECTOR_TRY(im::ImApi api, ApiFor(clients_, options_, handle.target, StateText(handle, kEndpoint)));
    ORCH_CONNECTOR_TRY(
        RestResponse response, api.Send("PUT", "/infrastructures/" + id + "/vms/" + physical_id + "/" + action)
    );
    if (response.status == 404) {
        return Failure{
            FailureKind::kUserError, "VM " + physical_id + " is not part of deployment " + handle.deployment_id};
    }
    if (!response.Ok()) {
        return api.StatusFailure(response, "IM " + action);
    }
    return true;
}

}  // namespace orch::connectors
