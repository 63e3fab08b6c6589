#include "sim/site_event_feed.hpp"

#include <set>

namespace orch::sim {

bool MarathonEventFeed::Next(std::string& out) {
    const SimResponse apps =
        site_.Observe(SimApi::kMarathon, MakeSimRequest("GET", "/v2/apps?embed=apps.tasks", {}, headers_));
    if (apps.status != 200) {
        return apps.status >= 500;  // a refused stream ends; an injected 5xx is skipped
    }
    const Json body = Json::parse(apps.body, nullptr, false);
    if (!body.is_object() || !body.contains("apps")) {
        return true;
    }
    std::map<std::string, std::string> now;
    for (const auto& app : body["apps"]) {
        std::string app_id = app.value("id", "");
        if (app_id.empty() || app_id.front() != '/') {
            app_id.insert(0, "/");  // Marathon's events carry absolute ids
        }
        // The app's deployment ending (Marathon's deployment_success): readiness waits for it.
        const bool deploying = !app.value("deployments", Json::array()).empty();
        const std::string app_key = "app " + app_id;
        const auto was = tasks_.find(app_key);
        if (!first_ && !deploying && was != tasks_.end() && was->second == "deploying") {
            const Json plan{
                {"id", "sim-plan"},
                {"steps",
                 Json::array({{{"actions", Json::array({{{"action", "ScaleApplication"}, {"app", app_id}}})}}})}};
            out += "event: deployment_success\ndata: " +
                   Json{{"eventType", "deployment_success"}, {"id", "sim-plan"}, {"plan", plan}}.dump() + "\n\n";
        }
        now[app_key] = deploying ? "deploying" : "done";
        for (const auto& task : app.value("tasks", Json::array())) {
            if (now.size() >= kMaxTracked) {
                break;
            }
            const std::string id = task.value("id", "");
            const std::string state = task.value("state", "");
            const Json checks = task.value("healthCheckResults", Json::array());
            const bool alive = !checks.empty() && checks[0].value("alive", false);
            now[id] = state + (alive ? "+alive" : "");
            const auto before = tasks_.find(id);
            if (first_ || (before != tasks_.end() && before->second == now[id])) {
                continue;
            }
            if (before == tasks_.end() || before->second.substr(0, before->second.find('+')) != state) {
                const Json event{
                    {"eventType", "status_update_event"},
                    {"timestamp", task.value("startedAt", task.value("stagedAt", ""))},
                    {"slaveId", task.value("slaveId", "")},
                    {"taskId", id},
                    {"taskStatus", state},
                    {"message", ""},
                    {"appId", app_id},
                    {"host", task.value("host", "")},
                    {"ports", task.value("ports", Json::array())},
                    {"version", task.value("version", "")}};
                out += "event: status_update_event\ndata: " + event.dump() + "\n\n";
            }
            if (alive != (before != tasks_.end() && before->second.ends_with("+alive"))) {
                const Json event{
                    {"eventType", "health_status_changed_event"},
                    {"appId", app_id},
                    {"taskId", id},
                    {"version", task.value("version", "")},
                    {"alive", alive}};
                out += "event: health_status_changed_event\ndata: " + event.dump() + "\n\n";
            }
        }
    }
    tasks_ = std::move(now);
    first_ = false;
    return true;
}

bool KubernetesWatchFeed::Next(std::string& out) {
    const SimResponse list = site_.Observe(SimApi::kKubernetes, MakeSimRequest("GET", list_target_, {}, headers_));
    if (list.status != 200) {
        if (list.status < 500) {
            out += Json{{"type", "ERROR"}, {"object", Json::parse(list.body, nullptr, false)}}.dump() + "\n";
            return false;
        }
        return true;
    }
    const Json body = Json::parse(list.body, nullptr, false);
    if (!body.is_object() || !body.contains("items")) {
        return true;
    }
    std::set<std::string> seen;
    for (const auto& item : body["items"]) {
        if (seen.size() >= kMaxTracked) {
            break;
        }
        const Json& meta = item.contains("metadata") ? item["metadata"] : Json::object();
        const std::string key = meta.value("namespace", "") + "/" + meta.value("name", "");
        seen.insert(key);
        // A pod's status is computed on read: its JSON is its version here.
        const std::string version = meta.value("resourceVersion", "") + item.value("status", Json::object()).dump();
        const auto before = objects_.find(key);
        const bool added = before == objects_.end();
        if (!added && before->second.first == version) {
            continue;
        }
        if (!first_) {
            out += Json{{"type", added ? "ADDED" : "MODIFIED"}, {"object", item}}.dump() + "\n";
        }
        objects_[key] = {version, item};
    }
    for (auto it = objects_.begin(); it != objects_.end();) {
        if (seen.count(it->first) == 0) {
            out += Json{{"type", "DELETED"}, {"object", it->second.second}}.dump() + "\n";
            it = objects_.erase(it);
        } else {
            ++it;
        }
    }
    first_ = false;
    return true;
}

}  // namespace orch::sim
