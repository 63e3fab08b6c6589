#include "connectors/marathon_connector.hpp"

#include "common/log.hpp"
#include "connectors/workload.hpp"
#include "marathon/marathon_app_builder.hpp"
#include "marathon/marathon_poll.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

namespace orch::connectors {
namespace {

Handle MakeHandle(const DeployRequest& request) {
    Handle handle;
    handle.deployment_id = request.deployment_id;
    handle.physical_id = MarathonGroupId(request.deployment_id);
    handle.target = request.target;
    handle.state = {{"apps", marathon::AppIds(*request.spec)}};
    return handle;
}

// Removes the tasks the user listed (they disappear and the app is scaled down by one each).
ConnectorResult<bool> KillListedTasks(RestClient& rest, const tosca::NodeSpec& node, const std::string& app_id) {
    // Marathon task ids are "<app path with '_' for '/'>.<uuid>".
    std::string prefix = app_id.substr(1) + ".";
    std::replace(prefix.begin(), prefix.end(), '/', '_');
    for (const auto& task_id : node.removal_list) {
        if (task_id.rfind(prefix, 0) != 0) {
            continue;  // not a task of this app
        }
        ORCH_CONNECTOR_TRY(
            RestResponse r, rest.Call("DELETE", "/v2/apps" + app_id + "/tasks/" + task_id + "?scale=true&force=true")
        );
        if (!r.Ok() && r.status != 404) {
            return rest.StatusFailure(r, "removing task " + task_id);
        }
    }
    return true;
}

// The app of a task, from the apps the handle records: Marathon task ids are "<app path with '_'
// for '/'>.<uuid>" (the longest matching app wins, as ids may share a beginning).
std::optional<std::string> AppOfTask(const Handle& handle, const std::string& task_id) {
    const std::string group = MarathonGroupId(handle.deployment_id);
    std::optional<std::string> found;
    const Json apps = handle.state.value("apps", Json::object());
    for (const auto& [node, name] : apps.items()) {
        if (!name.is_string()) {
            continue;
        }
        const std::string app_id = group + "/" + name.get<std::string>();
        std::string prefix = app_id.substr(1) + ".";
        std::replace(prefix.begin(), prefix.end(), '/', '_');
        if (task_id.rfind(prefix, 0) == 0 && (!found || app_id.size() > found->size())) {
            found = app_id;
        }
    }
    return found;
}

// The partial update that stops (0 instances, the count kept in a label) or starts (the kept
// count, label removed) an app; nullopt when the app already is as asked.
ConnectorResult<std::optional<Json>> StartStopChange(const Json& app, bool start) {
    Json labels = app.value("labels", Json::object());
    const int instances = app.value("instances", 0);
    if (!start) {
        if (instances == 0) {
            return std::optional<Json>();
        }
        labels[marathon::kStoppedInstancesLabel] = std::to_string(instances);
        return std::optional<Json>(Json{{"instances", 0}, {"labels", labels}});
    }
    const auto kept = labels.find(marathon::kStoppedInstancesLabel);
    if (kept == labels.end()) {
        return std::optional<Json>();
    }
    const std::string text = kept->is_string() ? kept->get<std::string>() : std::string();
    int count = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (ec != std::errc() || end != text.data() + text.size() || count < 1) {
        return Failure{FailureKind::kUserError, "the app's stopped instance count is unreadable"};
    }
    labels.erase(kept);
    return std::optional<Json>(Json{{"instances", count}, {"labels", labels}});
}

}  // namespace

MarathonConnector::MarathonConnector(SiteClientFactory& clients, CallOptions options)
    : clients_(clients), options_(options) {}

ConnectorResult<RestClient> MarathonConnector::ClientFor(const SiteTarget& target) {
    ORCH_CONNECTOR_TRY(std::shared_ptr<http::Client> client, clients_.ClientFor(target));
    return RestClient(
        std::move(client), target.endpoint, AuthHeaders(target.credentials), options_, "Marathon " + target.site_id
    );
}

ConnectorResult<Handle> MarathonConnector::Create(const DeployRequest& request) {
    return GuardJson("Marathon site " + request.target.site_id, [&]() -> ConnectorResult<Handle> {
        ORCH_CONNECTOR_TRY(Json group, BuildMarathonGroup(request));
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(request.target));
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("POST", "/v2/groups", &group));
        if (r.status == 409 && ServerMessage(r.body).find("already created") != std::string::npos) {
            // A re-run after a crash: the group named after the deployment is ours.
            ORCH_LOG_INFO("Marathon group already exists", {{"group", group["id"].get<std::string>()}});
            return MakeHandle(request);
        }
        if (r.status == 409) {
            return Failure{
                FailureKind::kRetryHere, "creating Marathon group on " + rest.site() + ": " + ServerMessage(r.body)};
        }
        if (!r.Ok()) {
            return rest.StatusFailure(r, "creating Marathon group " + group["id"].get<std::string>());
        }
        ORCH_LOG_INFO(
            "Marathon group created", {{"group", group["id"].get<std::string>()}, {"site", request.target.site_id}}
        );
        return MakeHandle(request);
    });
}

ConnectorResult<Observation> MarathonConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    return GuardJson("Marathon site " + handle.target.site_id, [&]() -> ConnectorResult<Observation> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        return marathon::PollGroup(rest, handle, spec);
    });
}

ConnectorResult<Handle> MarathonConnector::Update(const Handle& handle, const DeployRequest& request) {
    return GuardJson("Marathon site " + handle.target.site_id, [&]() -> ConnectorResult<Handle> {
        if (request.spec == nullptr) {
            return Failure{FailureKind::kUserError, "no deployment spec"};
        }
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        const std::string group = MarathonGroupId(handle.deployment_id);
        ORCH_CONNECTOR_TRY(RestResponse gr, rest.Call("GET", "/v2/groups" + group));
        if (gr.status == 404) {
            return Create(request);
        }
        if (!gr.Ok()) {
            return rest.StatusFailure(gr, "reading Marathon group " + group);
        }
        ORCH_CONNECTOR_TRY(Json current, rest.ParseBody(gr, "reading Marathon group " + group));
        std::set<std::string> existing;
        for (const auto& app : current.value("apps", Json::array())) {
            existing.insert(app.value("id", ""));
        }
        const auto ids = marathon::AppIds(*request.spec);
        std::set<std::string> wanted;
        for (const auto* node : NodesOfTypes(*request.spec, {kMarathonAppType})) {
            const std::string app_id = group + "/" + ids.at(node->name);
            wanted.insert(app_id);
            ORCH_CONNECTOR_TRY(Json app, marathon::BuildApp(*node, app_id, request));
            const bool exists = existing.count(app_id) != 0;
            if (exists) {
                ORCH_CONNECTOR_TRY(bool killed, KillListedTasks(rest, *node, app_id));
                (void)killed;
            }
            ORCH_CONNECTOR_TRY(
                RestResponse r,
                exists ? rest.Call("PUT", "/v2/apps" + app_id + "?force=true&partialUpdate=false", &app)
                       : rest.Call("POST", "/v2/apps", &app)
            );
            if (!r.Ok()) {
                return rest.StatusFailure(r, std::string(exists ? "updating" : "creating") + " Marathon app " + app_id);
            }
        }
        for (const auto& app_id : existing) {
            if (wanted.count(app_id) != 0) {
                continue;
            }
            ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("DELETE", "/v2/apps" + app_id + "?force=true"));
            if (!r.Ok() && r.status != 404) {
                return rest.StatusFailure(r, "removing Marathon app " + app_id);
            }
        }
        Handle updated = handle;
        updated.state = {{"apps", ids}};
        return updated;
    });
}

ConnectorResult<Deletion> MarathonConnector::Delete(const Handle& handle, bool force) {
    return GuardJson("Marathon site " + handle.target.site_id, [&]() -> ConnectorResult<Deletion> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        const std::string group = MarathonGroupId(handle.deployment_id);
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("DELETE", "/v2/groups" + group + "?force=true"));
        if (r.status == 404) {
            return Deletion::kComplete;
        }
        if (r.Ok()) {
            ORCH_LOG_INFO("Marathon group deletion started", {{"group", group}, {"site", handle.target.site_id}});
            return Deletion::kInProgress;
        }
        Failure failure = rest.StatusFailure(r, "deleting Marathon group " + group);
        if (force && failure.kind != FailureKind::kRetryHere) {
            ORCH_LOG_WARN("Marathon group deletion failed; forced", {{"group", group}, {"error", failure.message}});
            return Deletion::kInProgress;  // whatever is left, polling tells
        }
        return failure;
    });
}

ConnectorResult<bool> MarathonConnector::Act(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    if (action != "start" && action != "stop") {
        return Failure{FailureKind::kUserError, "Marathon apps do not support the action '" + action + "'"};
    }
    const auto app_id = AppOfTask(handle, physical_id);
    if (!app_id) {
        return Failure{FailureKind::kUserError, "the resource is not a task of one of the deployment's Marathon apps"};
    }
    return GuardJson("Marathon site " + handle.target.site_id, [&]() -> ConnectorResult<bool> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", "/v2/apps" + *app_id));
        if (!r.Ok()) {
            return rest.StatusFailure(r, "reading Marathon app " + *app_id);
        }
        ORCH_CONNECTOR_TRY(Json body, rest.ParseBody(r, "reading Marathon app " + *app_id));
        ORCH_CONNECTOR_TRY(
            std::optional<Json> change, StartStopChange(body.value("app", Json::object()), action == "start")
        );
        if (!change) {
            return true;  // already stopped / running: the action's poll sees it at once
        }
        ORCH_CONNECTOR_TRY(
            RestResponse put, rest.Call("PUT", "/v2/apps" + *app_id + "?partialUpdate=true&force=true", &*change)
        );
        if (!put.Ok()) {
            return rest.StatusFailure(
                put, (action == "start" ? "starting" : "stopping") + (" Marathon app " + *app_id)
            );
        }
        ORCH_LOG_INFO(
            "Marathon app " + std::string(action == "start" ? "started" : "stopped"),
            {{"app", *app_id}, {"instances", (*change)["instances"].get<int>()}, {"site", handle.target.site_id}}
        );
        return true;
    });
}

ConnectorResult<std::string> MarathonConnector::SiteVersion(const SiteTarget& target) {
    return GuardJson("Marathon site " + target.site_id, [&]() -> ConnectorResult<std::string> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(target));
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", "/v2/info"));
        if (!r.Ok()) {
            return rest.StatusFailure(r, "reading the Marathon version");
        }
        ORCH_CONNECTOR_TRY(Json info, rest.ParseBody(r, "Marathon version"));
        return "Marathon " + BoundedVersion(info.value("version", std::string(kUnknownSiteVersion)));
    });
}

}  // namespace orch::connectors
