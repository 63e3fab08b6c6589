// Reading a Marathon group back: per-app readiness (the Java rule), tasks as instances, ports
// as attributes, and unplaceable apps detected from the launch queue.
#include "marathon/marathon_poll.hpp"

#include "connectors/marathon_connector.hpp"
#include "connectors/workload.hpp"
#include "marathon/marathon_app_builder.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace orch::connectors::marathon {
namespace {

constexpr int kMaxStoppedInstances = 10000;

// The one map from a Mesos task state (as Marathon reports it) to instance statuses. A running
// task with failing health checks is still being configured; Marathon replaces failed tasks,
// but until then they show as ERROR; a word Mesos does not document is kUnknown.
InstanceStatus TaskStatus(const std::string& state, bool healthy) {
    if (state == "TASK_RUNNING") {
        return healthy ? InstanceStatus::kStarted : InstanceStatus::kConfiguring;
    }
    if (state.empty() || state == "TASK_STAGING" || state == "TASK_STARTING" || state == "TASK_UNREACHABLE") {
        return InstanceStatus::kCreating;
    }
    if (state == "TASK_KILLING") {
        return InstanceStatus::kDeleting;
    }
    if (state == "TASK_FINISHED" || state == "TASK_KILLED") {
        return InstanceStatus::kStopped;
    }
    if (state == "TASK_FAILED" || state == "TASK_ERROR" || state == "TASK_LOST" || state == "TASK_DROPPED" ||
        state == "TASK_GONE" || state == "TASK_GONE_BY_OPERATOR") {
        return InstanceStatus::kError;
    }
    return InstanceStatus::kUnknown;
}

// Offer rejections that mean "this cluster has nowhere to put the task", not "busy for a moment".
bool IsPlacementReason(const std::string& reason) {
    static const std::set<std::string> kReasons = {
        "InsufficientCpus",
        "InsufficientMemory",
        "InsufficientDisk",
        "InsufficientGpus",
        "InsufficientPorts",
        "UnfulfilledConstraint",
        "UnfulfilledRole",
        "DeclinedScarceResources",
        "NoCorrespondingReservationFound",
        "AgentMaintenance",
    };
    return kReasons.count(reason) != 0;
}

Json PublishPorts(const Json& app) {
    Json ports = Json::array();
    const Json container = app.value("container", Json::object());
    for (const auto& m : container.value("portMappings", Json::array())) {
        ports.push_back(
            {{"source", m.value("containerPort", 0)},
             {"target", m.value("servicePort", 0)},
             {"protocol", m.value("protocol", "tcp")}}
        );
    }
    for (const auto& d : app.value("portDefinitions", Json::array())) {
        ports.push_back(
            {{"source", d.value("port", 0)}, {"target", d.value("port", 0)}, {"protocol", d.value("protocol", "tcp")}}
        );
    }
    return ports;
}

// A stopped app (0 instances, the count it had in its label) has no tasks: its instances are
// reported as stopped, by index, so the deployment's resources show STOPPED, not vanish.
void AddStoppedInstances(const tosca::NodeSpec& node, const Json& app, int first_index, Observation& obs) {
    const Json labels = app.value("labels", Json::object());
    const auto label = labels.is_object() ? labels.find(kStoppedInstancesLabel) : labels.end();
    if (app.value("instances", 1) != 0 || label == labels.end() || !label->is_string()) {
        return;
    }
    const std::string kept = label->get<std::string>();
    int count = 0;
    const auto [end, ec] = std::from_chars(kept.data(), kept.data() + kept.size(), count);
    if (ec != std::errc() || end != kept.data() + kept.size()) {
        return;
    }
    // Bounded by what a node may have: the label is the site's text, not ours to trust.
    count = std::min(count, kMaxStoppedInstances);
    for (int i = first_index; i < count; ++i) {
        InstanceState instance;
        instance.node = node.name;
        instance.index = i;
        instance.state = InstanceStatus::kStopped;
        obs.instances.push_back(std::move(instance));
    }
}

struct AppView {
    bool ready = false;
    int running = 0;
    std::string waiting;
    std::string failure;
    bool failing = false;  ///< not ready, and its last task failure is of the app's current version
};

AppView ReadApp(const tosca::NodeSpec& node, const Json& app, const SiteTarget& target, Observation& obs) {
    AppView view;
    const int instances = app.value("instances", 1);
    const bool health_checked = !app.value("healthChecks", Json::array()).empty();
    view.running = app.value("tasksRunning", 0);
    const int healthy = app.value("tasksHealthy", 0);
    const bool deploying = !app.value("deployments", Json::array()).empty();
    view.ready = !deploying && (health_checked ? healthy >= instances : view.running >= instances);
    Json endpoints = Json::array();
    int index = 0;
    for (const auto& task : app.value("tasks", Json::array())) {
        InstanceState instance;
        instance.node = node.name;
        instance.index = index++;
        instance.physical_id = task.value("id", "");
        bool alive = true;
        for (const auto& h : task.value("healthCheckResults", Json::array())) {
            alive = alive && h.value("alive", false);
        }
        instance.state = TaskStatus(task.value("state", ""), alive || !health_checked);
        instance.attributes = {{"host", task.value("host", "")}, {"ports", task.value("ports", Json::array())}};
        if (task.contains("ipAddresses")) {
            instance.attributes["ip_addresses"] = task["ipAddresses"];
        }
        for (const auto& port : task.value("ports", Json::array())) {
            endpoints.push_back(task.value("host", "") + ":" + port.dump());
        }
        obs.instances.push_back(std::move(instance));
    }
    AddStoppedInstances(node, app, index, obs);
    const Json ports = PublishPorts(app);
    obs.attributes[node.name] = {
        {"app_id", app.value("id", "")},
        {"load_balancer_ips", OptionList(target, "load_balancer_ips")},
        {"tasks_running", view.running},
        {"endpoints", endpoints},
        {"publish_ports", ports},
    };
    if (!node.host_node.empty()) {
        obs.attributes[node.host_node]["host"]["publish_ports"] = ports;
    }
    if (!view.ready) {
        view.waiting = "app " + app.value("id", "") + ": " + std::to_string(health_checked ? healthy : view.running) +
                       "/" + std::to_string(instances) + (health_checked ? " tasks healthy" : " tasks running");
    }
    if (app.contains("lastTaskFailure") && app["lastTaskFailure"].is_object()) {
        const Json& last = app["lastTaskFailure"];
        view.failure = last.value("message", "");
        // A failure of an earlier version says nothing about this one (an update that fixed it).
        view.failing = !view.ready && last.value("version", "") == app.value("version", "");
        if (!view.failure.empty()) {
            view.waiting += (view.waiting.empty() ? "" : "; ") + std::string("last task failure: ") + view.failure;
            obs.log += app.value("id", "") + ": " + view.failure + "\n";
        }
    }
    return view;
}

// An app none of whose offers fit: the message names the reasons, as Marathon's queue does.
std::optional<std::string> Unplaceable(const Json& queue, const std::string& app_id) {
    for (const auto& entry : queue.value("queue", Json::array())) {
        if (entry.value("app", Json::object()).value("id", "") != app_id) {
            continue;
        }
        const Json summary = entry.value("processedOffersSummary", Json::object());
        const int processed = summary.value("processedOffersCount", 0);
        const int unused = summary.value("unusedOffersCount", 0);
        if (processed == 0 || unused < processed) {
            return std::nullopt;
        }
        std::string reasons;
        for (const auto& r : summary.value("rejectSummaryLastOffers", Json::array())) {
            const int declined = r.value("declined", 0);
            if (declined == 0) {
                continue;
            }
            if (!IsPlacementReason(r.value("reason", ""))) {
                return std::nullopt;
            }
            reasons += (reasons.empty() ? "" : ", ") + r.value("reason", "") + " (" + std::to_string(declined) + ")";
        }
        if (reasons.empty()) {
            return std::nullopt;
        }
        return "Marathon cannot place app " + app_id + ": every offer was declined: " + reasons;
    }
    return std::nullopt;
}

ConnectorResult<Observation> GoneOrStopping(RestClient& rest, const std::string& group) {
    ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", "/v2/deployments"));
    if (!r.Ok()) {
        return rest.StatusFailure(r, "listing Marathon deployments");
    }
    ORCH_CONNECTOR_TRY(Json deployments, rest.ParseBody(r, "listing Marathon deployments"));
    Observation obs;
    obs.phase = Phase::kGone;
    for (const auto& d : deployments.is_array() ? deployments : Json::array()) {
        for (const auto& app : d.value("affectedApps", Json::array())) {
            if (app.is_string() && app.get<std::string>().rfind(group + "/", 0) == 0) {
                obs.phase = Phase::kInProgress;
                obs.reason = "Marathon is still stopping the tasks of " + group;
            }
        }
    }
    return obs;
}

}  // namespace

ConnectorResult<Observation> PollGroup(RestClient& rest, const Handle& handle, const tosca::DeploymentSpec& spec) {
    const std::string group = MarathonGroupId(handle.deployment_id);
    ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("GET", "/v2/groups" + group));
    if (r.status == 404) {
        return GoneOrStopping(rest, group);
    }
    if (!r.Ok()) {
        return rest.StatusFailure(r, "reading Marathon group " + group);
    }
    ORCH_CONNECTOR_TRY(Json group_body, rest.ParseBody(r, "reading Marathon group " + group));
    (void)group_body;  // only its existence and integrity matter; apps are read one by one
    const auto ids = AppIds(spec);
    Observation obs;
    std::vector<std::string> waiting;
    std::vector<std::string> idle_apps;
    for (const auto* node : NodesOfTypes(spec, {kMarathonAppType})) {
        const std::string app_id = group + "/" + ids.at(node->name);
        ORCH_CONNECTOR_TRY(
            RestResponse ar,
            rest.Call(
                "GET",
                "/v2/apps" + app_id +
                    "?embed=app.tasks&embed=app.deployments&embed=app.lastTaskFailure&embed=app.counts"
            )
        );
        if (ar.status == 404) {
            return Observation{
                Phase::kFailed,
                "Marathon app " + app_id + " disappeared from site " + rest.site(),
                FailureKind::kTryAnotherSite,
                {},
                {},
                {}};
        }
        if (!ar.Ok()) {
            return rest.StatusFailure(ar, "reading Marathon app " + app_id);
        }
        ORCH_CONNECTOR_TRY(Json body, rest.ParseBody(ar, "reading Marathon app " + app_id));
        const AppView view = ReadApp(*node, body.value("app", Json::object()), handle.target, obs);
        if (!view.failure.empty()) {
            obs.site_message = "app " + app_id + ": " + view.failure;
        }
        if (view.failing) {
            obs.cannot_start = true;
            obs.site_message = "app " + app_id + ": tasks keep failing: " +
                               (view.failure.empty() ? std::string("no message from Marathon") : view.failure);
        }
        if (!view.ready) {
            waiting.push_back(view.waiting);
            if (view.running == 0) {
                idle_apps.push_back(app_id);
            }
        }
    }
    if (waiting.empty()) {
        obs.phase = Phase::kReady;
        return obs;
    }
    obs.phase = Phase::kInProgress;
    for (const auto& w : waiting) {
        obs.reason += (obs.reason.empty() ? "" : "; ") + w;
    }
    if (idle_apps.empty()) {
        return obs;
    }
    // The queue only explains; when it cannot be read the deployment simply keeps waiting.
    auto queue_response = rest.Call("GET", "/v2/queue");
    if (const auto* qr = std::get_if<RestResponse>(&queue_response); qr != nullptr && qr->Ok()) {
        auto queue = ParseJson(qr->body);
        for (const auto& app_id : idle_apps) {
            if (auto why = queue ? Unplaceable(*queue, app_id) : std::nullopt) {
                obs.phase = Phase::kFailed;
                obs.failure = FailureKind::kTryAnotherSite;
                obs.reason = *why + " on site " + rest.site();
                return obs;
            }
        }
    }
    return obs;
}

}  // namespace orch::connectors::marathon
