#include "connectors/openstack_connector.hpp"

#include "common/log.hpp"
#include "common/scale_plan.hpp"
#include "connectors/openstack_server.hpp"
#include "connectors/rest_client.hpp"
#include "openstack/openstack_api.hpp"
#include "openstack/openstack_states.hpp"

#include <algorithm>
#include <set>

namespace orch::connectors {
namespace {

using openstack::OpenStackApi;
using openstack::ServerRef;

std::string Prefix(const std::string& deployment_id) {
    return "orch-" + deployment_id + "-";
}

ConnectorResult<std::vector<const tosca::NodeSpec*>> VmNodes(const DeployRequest& request, std::size_t max_servers) {
    if (request.spec == nullptr || request.deployment_id.empty()) {
        return Failure{FailureKind::kUserError, "an OpenStack deployment needs a deployment id and a template"};
    }
    std::vector<const tosca::NodeSpec*> nodes;
    std::size_t total = 0;
    for (const auto& node : request.spec->nodes) {
        if (IsVirtualMachineNode(node)) {
            nodes.push_back(&node);
            total += static_cast<std::size_t>(std::max(node.count, 0));
        }
    }
    if (nodes.empty()) {
        return Failure{FailureKind::kUserError, "the template has no virtual machine (tosca.nodes.Compute) to create"};
    }
    if (total > max_servers) {
        return Failure{
            FailureKind::kUserError,
            "the template asks for " + std::to_string(total) + " servers; at most " + std::to_string(max_servers) +
                " are allowed per deployment",
        };
    }
    return nodes;
}

std::string Microversion(const OpenStackOptions& options, const SiteTarget& target) {
    const auto it = target.options.find("compute_microversion");
    return it != target.options.end() && it->is_string() ? it->get<std::string>() : options.compute_microversion;
}

/// False for a server another catalogue service made for the same deployment (an earlier attempt
/// on another site of the same cloud and project): deleting or adopting it by name would break
/// that attempt (found end to end: a failed attempt's cleanup deleted the next site's server).
bool MadeThrough(const Json& server, const SiteTarget& target) {
    const Json metadata = server.value("metadata", Json::object());
    return !metadata.is_object() || metadata.value("orch_service", target.service_id) == target.service_id;
}

/// Live servers of the deployment by name; servers on their way out do not count.
ConnectorResult<std::map<std::string, std::string>> LiveByName(
    OpenStackApi& api, const std::string& deployment_id, const SiteTarget& target
) {
    auto listed = api.ListServers(Prefix(deployment_id));
    if (auto* failure = std::get_if<Failure>(&listed)) {
        return *failure;
    }
    std::map<std::string, std::string> out;
    for (const auto& server : std::get<std::vector<Json>>(listed)) {
        if ((server.value("OS-EXT-STS:task_state", Json()).is_string() && server["OS-EXT-STS:task_state"] == "deleting"
            ) ||
            !MadeThrough(server, target)) {
            continue;
        }
        out[server.value("name", "")] = server.value("id", "");
    }
    return out;
}

/// The id of the live server named `name` made through `target`, if Nova lists one.
ConnectorResult<std::optional<std::string>> FindByName(
    OpenStackApi& api, const std::string& name, const SiteTarget& target
) {
    auto listed = api.ListServers(name);
    if (auto* failure = std::get_if<Failure>(&listed)) {
        return *failure;
    }
    for (const auto& server : std::get<std::vector<Json>>(listed)) {
        if (server.value("name", "") == name && MadeThrough(server, target) &&
            server.value("OS-EXT-STS:task_state", Json()) != "deleting") {
            return std::optional<std::string>(server.value("id", ""));
        }
    }
    return std::optional<std::string>();
}

/// POST /servers for `body`; when its answer is lost (kRetryHere: timeout, reset, 5xx) Nova may
/// still make the server after we stopped waiting, and lists it only once its own call ends
/// (found under load: Nova answered after 28 s, the retried Create did not see the server yet and
/// made a second one, which then hit the project's quota). So the server is looked up by its name
/// for `create_settle` and adopted if it appears; only then is the failure reported, and the
/// retried Create starts by listing the deployment's servers again.
ConnectorResult<std::string> CreateOrAdopt(
    OpenStackApi& api,
    const Json& body,
    const std::string& name,
    const SiteTarget& target,
    const OpenStackOptions& options
) {
    auto id = api.CreateServer(body);
    const auto* failure = std::get_if<Failure>(&id);
    if (failure == nullptr || failure->kind != FailureKind::kRetryHere) {
        return id;
    }
    const auto interval = std::max(options.create_settle_interval, std::chrono::milliseconds(1));
    const auto checks = options.create_settle.count() > 0 ? options.create_settle / interval + 1 : 0;
    for (std::int64_t check = 0; check < checks; ++check) {
        if (check > 0) {
            options.sleep(interval);
        }
        auto found = FindByName(api, name, target);
        if (auto* listed = std::get_if<std::optional<std::string>>(&found); listed != nullptr && *listed) {
            ORCH_LOG_WARN(
                "openstack server create answered late; adopting the server Nova made",
                {{"server", name}, {"id", **listed}, {"reason", failure->message}}
            );
            return **listed;
        }
    }
    return *failure;
}

/// Creates the instances `indexes` of `node` that are not live yet. `out` receives every instance
/// (found or new), `created` the new ones.
std::optional<Failure> CreateInstances(
    OpenStackApi& api,
    const DeployRequest& request,
    const tosca::NodeSpec& node,
    const std::vector<int>& indexes,
    const std::map<std::string, std::string>& live,
    const Json& networks,
    const OpenStackOptions& options,
    std::vector<ServerRef>& out,
    std::vector<ServerRef>& created
) {
    if (indexes.empty()) {
        return std::nullopt;
    }
    const auto placement = request.placements.find(node.name);
    if (placement == request.placements.end()) {
        return Failure{FailureKind::kUserError, "node '" + node.name + "': no flavor and image were chosen for it"};
    }
    ServerChoice choice;
    choice.networks = networks;
    auto flavor = api.FlavorId(placement->second);
    auto image = api.ImageId(placement->second);
    for (auto* failure : {std::get_if<Failure>(&flavor), std::get_if<Failure>(&image)}) {
        if (failure != nullptr) {
            return Failure{failure->kind, "node '" + node.name + "': " + failure->message};
        }
    }
    choice.flavor_id = std::get<std::string>(flavor);
    choice.image_id = std::get<std::string>(image);
    for (const int index : indexes) {
        const std::string name = OpenStackServerName(request.deployment_id, node.name, index);
        if (const auto it = live.find(name); it != live.end()) {
            out.push_back({node.name, index, name, it->second});
            continue;
        }
        auto body = BuildServerCreate(request, node, index, choice);
        if (auto* failure = std::get_if<Failure>(&body)) {
            return *failure;
        }
        auto id = CreateOrAdopt(api, std::get<Json>(body), name, request.target, options);
        if (auto* failure = std::get_if<Failure>(&id)) {
            return *failure;
        }
        created.push_back({node.name, index, name, std::get<std::string>(id)});
        out.push_back(created.back());
    }
    return std::nullopt;
}

void DeleteQuietly(OpenStackApi& api, const std::vector<ServerRef>& servers) {
    for (const auto& server : servers) {
        (void)api.DeleteServer(server.id);
    }
}

ConnectorResult<OpenStackApi> ApiFor(
    SiteClientFactory& clients, KeystoneAuth& keystone, const SiteTarget& target, const OpenStackOptions& options
) {
    auto client = clients.ClientFor(target);
    if (auto* failure = std::get_if<Failure>(&client)) {
        return *failure;
    }
    return OpenStackApi(
        std::move(std::get<std::shared_ptr<http::Client>>(client)),
        keystone,
        target,
        options.call_timeout,
        Microversion(options, target)
    );
}

/// True for a listed server that carries the name of one of the handle's servers but is not it:
/// a create Nova finished after our call timeout *and* the settle look-ups, so the retried Create
/// made the handle's server beside it. Made through the same catalogue service (not another
/// attempt's) and not already going.
bool IsLateDuplicate(const Json& server, const std::vector<ServerRef>& refs, const SiteTarget& target) {
    if (!MadeThrough(server, target) || server.value("OS-EXT-STS:task_state", Json()) == "deleting") {
        return false;
    }
    const std::string name = server.value("name", "");
    const std::string id = server.value("id", "");
    return std::any_of(refs.begin(), refs.end(), [&](const ServerRef& ref) {
        return ref.name == name && ref.id != id;
    });
}

Handle MakeHandle(const DeployRequest& request, const std::vector<ServerRef>& servers) {
    Handle handle;
    handle.deployment_id = request.deployment_id;
    handle.physical_id = Prefix(request.deployment_id);
    handle.target = request.target;
    Json list = Json::array();
    for (const auto& server : servers) {
        list.push_back(openstack::ToJson(server));
    }
    handle.state = {{"servers", std::move(list)}};
    return handle;
}

// The version a Keystone version document names: {"version": {"id": "v3.14"}} (the
// endpoint /v3), or the stable one of {"versions": {"values": [...]}} (its root); "" when none.
std::string KeystoneVersionId(const Json& doc) {
    const auto id_of = [](const Json& v) {
        const auto id = v.is_object() ? v.find("id") : v.end();
        return v.is_object() && id != v.end() && id->is_string() ? id->get<std::string>() : std::string();
    };
    if (!doc.is_object()) {
        return {};
    }
    if (const auto version = doc.find("version"); version != doc.end()) {
        return id_of(*version);
    }
    const auto versions = doc.find("versions");
    if (versions == doc.end() || !versions->is_object() || !versions->contains("values")) {
        return {};
    }
    const Json& values = (*versions)["values"];
    std::string found;
    for (std::size_t i = 0; values.is_array() && i < std::min<std::size_t>(values.size(), 16); ++i) {
        const Json& v = values[i];
        const auto status = v.is_object() ? v.find("status") : v.end();
        const bool stable = v.is_object() && status != v.end() && status->is_string() && *status == "stable";
        if (std::string id = id_of(v); !id.empty() && (found.empty() || stable)) {
            found = std::move(id);
        }
    }
    return found;
}

}  // namespace

OpenStackConnector::OpenStackConnector(SiteClientFactory& clients, const Clock& clock, OpenStackOptions options)
    : clients_(clients), options_(std::move(options)), keystone_(clients, clock, options_.keystone) {}

ConnectorResult<Handle> OpenStackConnector::CreateUnguarded(const DeployRequest& request) {
    auto nodes = VmNodes(request, options_.max_servers_per_deployment);
    if (auto* failure = std::get_if<Failure>(&nodes)) {
        return *failure;
    }
    auto made = ApiFor(clients_, keystone_, request.target, options_);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    auto& api = std::get<OpenStackApi>(made);
    auto live = LiveByName(api, request.deployment_id, request.target);
    if (auto* failure = std::get_if<Failure>(&live)) {
        return *failure;
    }
    auto networks = api.Networks();
    if (auto* failure = std::get_if<Failure>(&networks)) {
        return *failure;
    }
    std::vector<ServerRef> servers;
    std::vector<ServerRef> created;
    for (const auto* node : std::get<std::vector<const tosca::NodeSpec*>>(nodes)) {
        std::vector<int> indexes(static_cast<std::size_t>(std::max(node->count, 0)));
        for (std::size_t i = 0; i < indexes.size(); ++i) {
            indexes[i] = static_cast<int>(i);
        }
        auto failure = CreateInstances(
            api,
            request,
            *node,
            indexes,
            std::get<std::map<std::string, std::string>>(live),
            std::get<Json>(networks),
            options_,
            servers,
            created
        );
        if (failure) {
            // A transient failure is retried by a new Create, which finds these by name.
            if (failure->kind != FailureKind::kRetryHere) {
                DeleteQuietly(api, created);
            }
            return *failure;
        }
    }
    ORCH_LOG_INFO(
        "openstack servers requested",
        {{"deployment_id", request.deployment_id},
         {"site", request.target.site_id},
         {"created", static_cast<int>(created.size())},
         {"servers", static_cast<int>(servers.size())}}
    );
    return MakeHandle(request, servers);
}

ConnectorResult<Observation>
OpenStackConnector::PollUnguarded(const Handle& handle, const tosca::DeploymentSpec& /*spec*/) {
    auto refs = openstack::ServerRefs(handle);
    if (auto* failure = std::get_if<Failure>(&refs)) {
        return *failure;
    }
    auto made = ApiFor(clients_, keystone_, handle.target, options_);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    auto& api = std::get<OpenStackApi>(made);
    auto listed = api.ListServers(Prefix(handle.deployment_id));
    if (auto* failure = std::get_if<Failure>(&listed)) {
        return *failure;
    }
    const auto& known = std::get<std::vector<ServerRef>>(refs);
    std::map<std::string, Json> live;
    for (auto& server : std::get<std::vector<Json>>(listed)) {
        std::string id = server.value("id", "");
        if (IsLateDuplicate(server, known, handle.target)) {
            // Deleted, never adopted: the handle's server of that name is the one configured and
            // reported. A failed delete is tried again by the next poll (and by Delete).
            ORCH_LOG_WARN(
                "openstack server made late beside its retry; deleting the duplicate",
                {{"deployment_id", handle.deployment_id}, {"server", server.value("name", "")}, {"id", id}}
            );
            (void)api.DeleteServer(id);
            continue;
        }
        // The list leaves out the fault of a server in ERROR; the reason needs it.
        if (server.value("status", "") == "ERROR" && !server.contains("fault")) {
            auto shown = api.GetServer(id);
            if (auto* failure = std::get_if<Failure>(&shown)) {
                return *failure;
            }
            if (auto& detail = std::get<std::optional<Json>>(shown)) {
                server = std::move(*detail);
            }
        }
        live[std::move(id)] = std::move(server);
    }
    return openstack::ObserveServers(known, live);
}

ConnectorResult<Handle> OpenStackConnector::UpdateUnguarded(const Handle& handle, const DeployRequest& request) {
    auto refs = openstack::ServerRefs(handle);
    if (auto* failure = std::get_if<Failure>(&refs)) {
        return *failure;
    }
    auto nodes = VmNodes(request, options_.max_servers_per_deployment);
    if (auto* failure = std::get_if<Failure>(&nodes)) {
        return *failure;
    }
    auto made = ApiFor(clients_, keystone_, request.target, options_);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    auto& api = std::get<OpenStackApi>(made);

    // Keep, per node, the servers not asked to go, lowest indexes first, up to the new count.
    auto plan = PlanScale(
        std::get<std::vector<ServerRef>>(refs),
        std::get<std::vector<const tosca::NodeSpec*>>(nodes),
        [](const ServerRef& ref) { return ref.id; }
    );
    auto& kept = plan.kept;
    for (const auto& ref : plan.surplus) {
        if (auto deleted = api.DeleteServer(ref.id); std::holds_alternative<Failure>(deleted)) {
            return std::get<Failure>(deleted);
        }
    }
    auto live = LiveByName(api, request.deployment_id, request.target);
    if (auto* failure = std::get_if<Failure>(&live)) {
        return *failure;
    }
    auto networks = api.Networks();
    if (auto* failure = std::get_if<Failure>(&networks)) {
        return *failure;
    }
    std::vector<ServerRef> servers;
    std::vector<ServerRef> created;
    for (const auto* node : std::get<std::vector<const tosca::NodeSpec*>>(nodes)) {
        const auto& mine = kept[node->name];
        std::set<int> used;
        for (const auto& ref : mine) {
            used.insert(ref.index);
            servers.push_back(ref);
        }
        const auto missing = static_cast<std::size_t>(std::max(node->count, 0)) - mine.size();
        auto failure = CreateInstances(
            api,
            request,
            *node,
            FirstFreeIndexes(used, missing),
            std::get<std::map<std::string, std::string>>(live),
            std::get<Json>(networks),
            options_,
            servers,
            created
        );
        if (failure) {
            if (failure->kind != FailureKind::kRetryHere) {
                DeleteQuietly(api, created);
            }
            return *failure;
        }
    }
    return MakeHandle(request, servers);
}

ConnectorResult<Deletion> OpenStackConnector::DeleteUnguarded(const Handle& handle, bool force) {
    auto refs = openstack::ServerRefs(handle);
    if (std::holds_alternative<Failure>(refs) && !force) {
        return std::get<Failure>(refs);
    }
    auto made = ApiFor(clients_, keystone_, handle.target, options_);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    auto& api = std::get<OpenStackApi>(made);
    // Servers an interrupted Create made but never reported are found by name.
    std::set<std::string> ids;
    if (auto* known = std::get_if<std::vector<ServerRef>>(&refs)) {
        for (const auto& ref : *known) {
            ids.insert(ref.id);
        }
    }
    auto listed = api.ListServers(Prefix(handle.deployment_id));
    if (auto* failure = std::get_if<Failure>(&listed)) {
        if (!force) {
            return *failure;
        }
    } else {
        for (const auto& server : std::get<std::vector<Json>>(listed)) {
            if (MadeThrough(server, handle.target)) {
                ids.insert(server.value("id", ""));
            }
        }
    }
    bool anything_left = false;
    for (const auto& id : ids) {
        auto deleted = api.DeleteServer(id);
        if (auto* failure = std::get_if<Failure>(&deleted)) {
            if (!force) {
                return *failure;
            }
            ORCH_LOG_WARN(
                "openstack server not deleted (forced delete goes on)",
                {{"deployment_id", handle.deployment_id}, {"server", id}, {"reason", failure->message}}
            );
            continue;
        }
        anything_left = anything_left || std::get<bool>(deleted);
    }
    return anything_left ? Deletion::kInProgress : Deletion::kComplete;
}

ConnectorResult<bool> OpenStackConnector::ActUnguarded(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    auto refs = openstack::ServerRefs(handle);
    if (auto* failure = std::get_if<Failure>(&refs)) {
        return *failure;
    }
    const auto& servers = std::get<std::vector<ServerRef>>(refs);
    if (std::none_of(servers.begin(), servers.end(), [&](const ServerRef& r) { return r.id == physical_id; })) {
        return Failure{
            FailureKind::kUserError, "server " + physical_id + " is not part of deployment " + handle.deployment_id};
    }
    Json body;
    if (action == "start") {
        body = {{"os-start", nullptr}};
    } else if (action == "stop") {
        body = {{"os-stop", nullptr}};
    } else if (action == "reboot") {
        body = {{"reboot", {{"type", "SOFT"}}}};
    } else {
        return Failure{FailureKind::kUserError, "unknown action '" + action + "' (start, stop or reboot)"};
    }
    auto made = ApiFor(clients_, keystone_, handle.target, options_);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    auto& api = std::get<OpenStackApi>(made);
    return api.ServerAction(physical_id, body, "Nova " + action);
}

ConnectorResult<Handle> OpenStackConnector::Create(const DeployRequest& request) {
    return GuardJson(request.target.site_id, [&] { return CreateUnguarded(request); });
}

ConnectorResult<Observation> OpenStackConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    return GuardJson(handle.target.site_id, [&] { return PollUnguarded(handle, spec); });
}

ConnectorResult<Handle> OpenStackConnector::Update(const Handle& handle, const DeployRequest& request) {
    return GuardJson(request.target.site_id, [&] { return UpdateUnguarded(handle, request); });
}

ConnectorResult<Deletion> OpenStackConnector::Delete(const Handle& handle, bool force) {
    return GuardJson(handle.target.site_id, [&] { return DeleteUnguarded(handle, force); });
}

ConnectorResult<std::string> OpenStackConnector::SiteVersion(const SiteTarget& target) {
    return GuardJson(target.site_id, [&]() -> ConnectorResult<std::string> {
        ORCH_CONNECTOR_TRY(std::shared_ptr<http::Client> client, clients_.ClientFor(target));
        const CallOptions bounds{std::min(options_.call_timeout, std::chrono::milliseconds(15'000)), 1U << 20U};
        RestClient rest(std::move(client), target.endpoint, {}, bounds, "Keystone " + target.site_id);
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", ""));
        // Its root answers 300 Multiple Choices with the list of versions.
        if (!r.Ok() && r.status != 300) {
            return rest.StatusFailure(r, "reading the Keystone version");
        }
        return "Keystone " + BoundedVersion(KeystoneVersionId(ParseJson(r.body, 16).value_or(Json())));
    });
}

ConnectorResult<bool> OpenStackConnector::Act(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    return GuardJson(handle.target.site_id, [&] { return ActUnguarded(handle, physical_id, action); });
}

}  // namespace orch::connectors
