#include "sim/marathon_sim.hpp"

#include "marathon_model.hpp"
#include "sim/sim_clock.hpp"

#include <algorithm>

namespace orch::sim {
namespace {

bool QueryFlag(const SimRequest& request, std::string_view name, bool fallback) {
    const auto value = request.Query(name);
    if (!value) {
        return fallback;
    }
    return *value != "false" && *value != "0";
}

bool Embeds(const SimRequest& request, const std::string& what) {
    for (const auto& e : request.QueryAll("embed")) {
        if (e == what) {
            return true;
        }
    }
    return false;
}

SimResponse DeploymentAccepted(int status, const std::string& version, const std::string& deployment_id) {
    auto response = SimResponse::JsonBody(status, {{"version", version}, {"deploymentId", deployment_id}});
    response.headers.emplace_back("Marathon-Deployment-Id", deployment_id);
    return response;
}

std::string TrimSlashes(std::string id) {
    while (id.size() > 1 && id.back() == '/') {
        id.pop_back();
    }
    return id.empty() ? "/" : id;
}

// What makes tasks restart when it changes: everything but scaling and version stamps.
Json ConfigOf(Json definition) {
    for (const char* key : {"instances", "version", "versionInfo"}) {
        definition.erase(key);
    }
    return definition;
}

// A replaced definition asking for "any port" (0) keeps the service ports already assigned.
void KeepServicePorts(const Json& old_definition, Json& definition) {
    const auto keep = [](const Json& old_list, Json& list, const char* field) {
        for (std::size_t i = 0; i < list.size() && i < old_list.size(); ++i) {
            if (list[i].is_object() && list[i].value(field, 0) == 0 && old_list[i].is_object()) {
                list[i][field] = old_list[i].value(field, 0);
            }
        }
    };
    if (definition.contains("portDefinitions") && old_definition.contains("portDefinitions")) {
        keep(old_definition["portDefinitions"], definition["portDefinitions"], "port");
    }
    if (definition.contains("container") && definition["container"].contains("portMappings") &&
        old_definition.contains("container") && old_definition["container"].contains("portMappings")) {
        keep(old_definition["container"]["portMappings"], definition["container"]["portMappings"], "servicePort");
    }
}

bool IsUnder(const std::string& id, const std::string& group) {
    return group == "/" || id == group || id.rfind(group + "/", 0) == 0;
}

}  // namespace

class MarathonHandlers {
   public:
    MarathonHandlers(MarathonSim::State& state, double now) : s_(state), now_(now) {}

    SimResponse Route(const SimRequest& request);

   private:
    SimResponse Groups(const SimRequest& request, const std::string& rest);
    SimResponse Apps(const SimRequest& request, const std::string& rest);
    SimResponse Deployments(const SimRequest& request, const std::string& rest);
    SimResponse CreateGroup(const SimRequest& request);
    SimResponse GetGroup(const SimRequest& request, const std::string& id) const;
    SimResponse DeleteGroup(const SimRequest& request, const std::string& id);
    SimResponse CreateApp(const Json& definition, const std::string& id);
    SimResponse UpdateApp(const SimRequest& request, const std::string& id);
    SimResponse DeleteApp(const SimRequest& request, const std::string& id);
    SimResponse KillTask(const SimRequest& request, const std::string& app_id, const std::string& task_id);
    SimResponse LockedError(const std::string& app_id) const;
    Json NormalizeApp(Json definition, const std::string& id) const;
    void EnsureGroups(const std::string& app_or_group_id);
    Json GroupJson(const std::string& id, const SimRequest& request) const;

    MarathonSim::State& s_;
    double now_;
};

SimResponse MarathonHandlers::Route(const SimRequest& request) {
    const std::string& path = request.path;
    if (path == "/v2/info" || path == "/v2/ping") {
        return SimResponse::JsonBody(200, {{"name", "marathon"}, {"version", "1.7.236"}, {"simulator", "site-sim"}});
    }
    if (path.rfind("/v2/groups", 0) == 0) {
        return Groups(request, path.substr(10));
    }
    if (path.rfind("/v2/apps", 0) == 0) {
        return Apps(request, path.substr(8));
    }
    if (path.rfind("/v2/deployments", 0) == 0) {
        return Deployments(request, path.substr(15));
    }
    if (path == "/v2/queue" && request.method == "GET") {
        return SimResponse::JsonBody(200, s_.QueueJson(now_));
    }
    if (path == "/v2/tasks" && request.method == "GET") {
        Json tasks = Json::array();
        for (const auto& [id, app] : s_.apps) {
            for (const auto& t : app.tasks) {
                tasks.push_back(s_.TaskJson(t, now_));
            }
        }
        return SimResponse::JsonBody(200, {{"tasks", tasks}});
    }
    return MarathonError(404, "Not Found: " + path + " is not part of the simulated Marathon API");
}

SimResponse MarathonHandlers::Groups(const SimRequest& request, const std::string& rest) {
    const std::string id = TrimSlashes(rest);
    if (request.method == "POST" && id == "/") {
        return CreateGroup(request);
    }
    if (request.method == "GET") {
        return GetGroup(request, id);
    }
    if (request.method == "DELETE") {
        return DeleteGroup(request, id);
    }
    if (request.method == "PUT" || request.method == "PATCH") {
        return MarathonError(501, "site-sim does not simulate group updates; update apps with PUT /v2/apps/{id}");
    }
    return MarathonError(405, "HTTP 405 Method Not Allowed");
}

SimResponse MarathonHandlers::CreateGroup(const SimRequest& request) {
    auto body = ParseJson(request.body);
    if (!body) {
        return MarathonError(400, "Invalid JSON", Json::array({{{"path", "/"}, {"errors", {body.error().message}}}}));
    }
    Json details = ValidateMarathonGroup(s_.config, s_.schemas, *body);
    if (!details.empty()) {
        return MarathonError(422, "Object is not valid", details);
    }
    if (body->contains("groups") && !(*body)["groups"].empty()) {
        return MarathonError(
            422,
            "Object is not valid",
            Json::array({{{"path", "/groups"}, {"errors", {"site-sim does not simulate nested groups"}}}})
        );
    }
    const std::string group_id = TrimSlashes(AbsoluteMarathonId((*body)["id"].get<std::string>(), "/"));
    const bool exists =
        s_.groups.count(group_id) != 0 ||
        std::any_of(s_.apps.begin(), s_.apps.end(), [&](const auto& a) { return IsUnder(a.first, group_id); });
    if (exists) {
        return MarathonError(409, "Group " + group_id + " is already created. Use PUT to change this group.");
    }
    const Json apps = body->value("apps", Json::array());
    if (s_.apps.size() + apps.size() > s_.config.max_objects) {
        return MarathonError(503, "site-sim object limit reached");
    }
    EnsureGroups(group_id);
    s_.groups[group_id].dependencies = body->value("dependencies", Json::array());
    std::vector<std::string> created;
    for (const auto& app : apps) {
        const std::string id = AbsoluteMarathonId(app["id"].get<std::string>(), group_id);
        MarathonApp model;
        model.id = id;
        model.definition = NormalizeApp(app, id);
        model.queued_since = now_;
        s_.apps[id] = std::move(model);
        created.push_back(id);
    }
    const std::string deployment = s_.StartDeployment(created, now_, false);
    auto response = DeploymentAccepted(201, FormatIsoTime(now_), deployment);
    response.headers.emplace_back("Location", "/v2/groups" + group_id);
    return response;
}

Json MarathonHandlers::GroupJson(const std::string& id, const SimRequest& request) const {
    Json apps = Json::array();
    const bool counts = Embeds(request, "group.apps.counts") || Embeds(request, "group.apps.tasks");
    for (const auto& [app_id, app] : s_.apps) {
        if (app_id.rfind(id == "/" ? "/" : id + "/", 0) == 0 &&
            app_id.find('/', id == "/" ? 1 : id.size() + 1) == std::string::npos) {
            apps.push_back(counts ? s_.AppJson(app, now_) : app.definition);
        }
    }
    Json groups = Json::array();
    for (const auto& [group_id, group] : s_.groups) {
        const auto parent = group_id.substr(0, group_id.rfind('/'));
        if (group_id != id && (parent.empty() ? "/" : parent) == id) {
            groups.push_back(GroupJson(group_id, request));
        }
    }
    const auto it = s_.groups.find(id);
    return {
        {"id", id},
        {"apps", apps},
        {"groups", groups},
        {"pods", Json::array()},
        {"dependencies", it == s_.groups.end() ? Json::array() : it->second.dependencies},
        {"version", it == s_.groups.end() ? FormatIsoTime(now_) : it->second.version},
    };
}

SimResponse MarathonHandlers::GetGroup(const SimRequest& request, const std::string& id) const {
    if (id != "/" && s_.groups.count(id) == 0) {
        return MarathonError(404, "Group '" + id + "' does not exist");
    }
    return SimResponse::JsonBody(200, GroupJson(id, request));
}

SimResponse MarathonHandlers::DeleteGroup(const SimRequest& request, const std::string& id) {
    if (id == "/" || s_.groups.count(id) == 0) {
        return MarathonError(404, "Group '" + id + "' does not exist");
    }
    const bool force = QueryFlag(request, "force", false);
    std::vector<std::string> affected;
    for (const auto& [app_id, app] : s_.apps) {
        if (IsUnder(app_id, id)) {
            if (!force && !s_.LockingDeployments(app_id).empty()) {
                return LockedError(app_id);
            }
            affected.push_back(app_id);
        }
    }
    for (const auto& app_id : affected) {
        s_.CancelDeploymentsOf(app_id);
        for (auto& task : s_.apps[app_id].tasks) {
            s_.KillTask(task, now_);
        }
        s_.apps.erase(app_id);
    }
    for (auto it = s_.groups.begin(); it != s_.groups.end();) {
        it = IsUnder(it->first, id) ? s_.groups.erase(it) : std::next(it);
    }
    const std::string deployment = s_.StartDeployment(affected, now_, true);
    return DeploymentAccepted(200, FormatIsoTime(now_), deployment);
}

SimResponse MarathonHandlers::Apps(const SimRequest& request, const std::string& rest) {
    if (rest.empty() || rest == "/") {
        if (request.method == "GET") {
            Json apps = Json::array();
            const std::string filter = request.Query("id").value_or("");
            for (const auto& [id, app] : s_.apps) {
                if (id.find(filter) != std::string::npos) {
                    apps.push_back(s_.AppJson(app, now_));
                }
            }
            return SimResponse::JsonBody(200, {{"apps", apps}});
        }
        if (request.method == "POST") {
            auto body = ParseJson(request.body);
            if (!body || !body->is_object()) {
                return MarathonError(400, "Invalid JSON");
            }
            const std::string id = TrimSlashes(AbsoluteMarathonId(body->value("id", ""), "/"));
            Json details = ValidateMarathonApp(s_.config, s_.schemas, *body, "");
            if (!details.empty()) {
                return MarathonError(422, "Object is not valid", details);
            }
            if (s_.apps.count(id) != 0) {
                return MarathonError(409, "An app with id [" + id + "] already exists.");
            }
            return CreateApp(*body, id);
        }
        return MarathonError(405, "HTTP 405 Method Not Allowed");
    }
    const auto tasks_pos = rest.find("/tasks");
    const std::string app_id = TrimSlashes(rest.substr(0, tasks_pos));
    if (tasks_pos != std::string::npos) {
        const std::string task_part = rest.substr(tasks_pos + 6);
        const auto app = s_.apps.find(app_id);
        if (app == s_.apps.end()) {
            return MarathonError(404, "App '" + app_id + "' does not exist");
        }
        if (request.method == "GET" && (task_part.empty() || task_part == "/")) {
            Json tasks = Json::array();
            for (const auto& t : app->second.tasks) {
                tasks.push_back(s_.TaskJson(t, now_));
            }
            return SimResponse::JsonBody(200, {{"tasks", tasks}});
        }
        if (request.method == "DELETE" && task_part.size() > 1) {
            return KillTask(request, app_id, task_part.substr(1));
        }
        return MarathonError(405, "HTTP 405 Method Not Allowed");
    }
    if (request.method == "GET") {
        const auto app = s_.apps.find(app_id);
        if (app == s_.apps.end()) {
            return MarathonError(404, "App '" + app_id + "' does not exist");
        }
        return SimResponse::JsonBody(200, {{"app", s_.AppJson(app->second, now_)}});
    }
    if (request.method == "PUT" || request.method == "PATCH") {
        return UpdateApp(request, app_id);
    }
    if (request.method == "DELETE") {
        return DeleteApp(request, app_id);
    }
    return MarathonError(405, "HTTP 405 Method Not Allowed");
}

SimResponse MarathonHandlers::CreateApp(const Json& definition, const std::string& id) {
    if (s_.apps.size() >= s_.config.max_objects) {
        return MarathonError(503, "site-sim object limit reached");
    }
    EnsureGroups(id.substr(0, id.rfind('/')));
    MarathonApp model;
    model.id = id;
    model.definition = NormalizeApp(definition, id);
    model.queued_since = now_;
    s_.apps[id] = std::move(model);
    const std::string deployment = s_.StartDeployment({id}, now_, false);
    return DeploymentAccepted(201, FormatIsoTime(now_), deployment);
}

SimResponse MarathonHandlers::UpdateApp(const SimRequest& request, const std::string& id) {
    auto body = ParseJson(request.body);
    if (!body || !body->is_object()) {
        return MarathonError(400, "Invalid JSON");
    }
    if (body->contains("id") && AbsoluteMarathonId((*body)["id"].get<std::string>(), "/") != id) {
        return MarathonError(
            422, "Object is not valid", Json::array({{{"path", "/id"}, {"errors", {"id must match the path"}}}})
        );
    }
    const auto existing = s_.apps.find(id);
    const bool partial = request.method == "PATCH" || QueryFlag(request, "partialUpdate", true);
    Json merged = existing != s_.apps.end() && partial ? existing->second.definition : Json::object();
    for (const auto& [key, value] : body->items()) {
        merged[key] = value;
    }
    merged["id"] = id;
    merged.erase("version");
    merged.erase("versionInfo");
    Json details = ValidateMarathonApp(s_.config, s_.schemas, merged, "");
    if (!details.empty()) {
        return MarathonError(422, "Object is not valid", details);
    }
    if (existing == s_.apps.end()) {
        return CreateApp(merged, id);
    }
    if (!s_.LockingDeployments(id).empty()) {
        if (!QueryFlag(request, "force", false)) {
            return LockedError(id);
        }
        s_.CancelDeploymentsOf(id);
    }
    auto& app = existing->second;
    KeepServicePorts(app.definition, merged);
    Json normalized = NormalizeApp(merged, id);
    const bool restart = ConfigOf(app.definition) != ConfigOf(normalized);
    app.definition = std::move(normalized);
    if (restart) {
        for (auto& task : app.tasks) {
            s_.KillTask(task, now_);
        }
        app.tasks.clear();
        app.last_task_failure = nullptr;
        app.delay = 0;
        app.next_launch = now_;
    }
    const std::string deployment = s_.StartDeployment({id}, now_, false);
    return DeploymentAccepted(200, FormatIsoTime(now_), deployment);
}

SimResponse MarathonHandlers::DeleteApp(const SimRequest& request, const std::string& id) {
    const auto app = s_.apps.find(id);
    if (app == s_.apps.end()) {
        return MarathonError(404, "App '" + id + "' does not exist");
    }
    if (!s_.LockingDeployments(id).empty()) {
        if (!QueryFlag(request, "force", false)) {
            return LockedError(id);
        }
        s_.CancelDeploymentsOf(id);
    }
    for (auto& task : app->second.tasks) {
        s_.KillTask(task, now_);
    }
    s_.apps.erase(app);
    const std::string deployment = s_.StartDeployment({id}, now_, true);
    return DeploymentAccepted(200, FormatIsoTime(now_), deployment);
}

SimResponse MarathonHandlers::KillTask(
    const SimRequest& request, const std::string& app_id, const std::string& task_id
) {
    auto& app = s_.apps[app_id];
    const auto it = std::find_if(app.tasks.begin(), app.tasks.end(), [&](const auto& t) { return t.id == task_id; });
    if (it == app.tasks.end()) {
        return MarathonError(404, "Task '" + task_id + "' does not exist");
    }
    Json task = s_.TaskJson(*it, now_);
    s_.KillTask(*it, now_);
    app.tasks.erase(it);
    if (QueryFlag(request, "scale", false)) {
        app.definition["instances"] = std::max(0, app.Instances() - 1);
        const std::string deployment = s_.StartDeployment({app_id}, now_, false);
        return DeploymentAccepted(200, FormatIsoTime(now_), deployment);
    }
    return SimResponse::JsonBody(200, {{"task", task}});
}

SimResponse MarathonHandlers::Deployments(const SimRequest& request, const std::string& rest) {
    if (request.method == "GET" && (rest.empty() || rest == "/")) {
        Json list = Json::array();
        for (const auto& d : s_.deployments) {
            Json actions = Json::array();
            for (const auto& app : d.affected_apps) {
                actions.push_back({{"action", d.deletion ? "StopApplication" : "ScaleApplication"}, {"app", app}});
            }
            list.push_back({
                {"id", d.id},
                {"version", d.version},
                {"affectedApps", d.affected_apps},
                {"affectedPods", Json::array()},
                {"steps", Json::array({{{"actions", actions}}})},
                {"currentActions", actions},
                {"currentStep", 1},
                {"totalSteps", 1},
            });
        }
        return SimResponse::JsonBody(200, list);
    }
    if (request.method == "DELETE" && rest.size() > 1) {
        const std::string id = rest.substr(1);
        const auto it =
            std::find_if(s_.deployments.begin(), s_.deployments.end(), [&](const auto& d) { return d.id == id; });
        if (it == s_.deployments.end()) {
            return MarathonError(404, "DeploymentPlan " + id + " does not exist");
        }
        s_.deployments.erase(it);
        return DeploymentAccepted(202, FormatIsoTime(now_), id);
    }
    return MarathonError(405, "HTTP 405 Method Not Allowed");
}

SimResponse MarathonHandlers::LockedError(const std::string& app_id) const {
    Json deps = Json::array();
    std::string first;
    for (const auto& id : s_.LockingDeployments(app_id)) {
        deps.push_back({{"id", id}});
        first = first.empty() ? id : first;
    }
    Json body = {
        {"message",
         "App is locked by one or more deployments. Override with the option '?force=true'. View details at "
         "'/v2/deployments/" +
             first + "'."},
        {"deployments", deps},
    };
    return SimResponse::JsonBody(409, body);
}

Json MarathonHandlers::NormalizeApp(Json definition, const std::string& id) const {
    definition["id"] = id;
    const auto set_default = [&](const char* key, const Json& value) {
        if (!definition.contains(key)) {
            definition[key] = value;
        }
    };
    set_default("instances", 1);
    set_default("cpus", 1.0);
    set_default("mem", 128.0);
    set_default("disk", 0.0);
    set_default("gpus", 0);
    set_default("backoffSeconds", 1);
    set_default("backoffFactor", 1.15);
    set_default("maxLaunchDelaySeconds", 300);
    set_default("env", Json::object());
    set_default("labels", Json::object());
    set_default("constraints", Json::array());
    set_default("healthChecks", Json::array());
    definition["version"] = FormatIsoTime(now_);
    definition["versionInfo"] = {{"lastScalingAt", FormatIsoTime(now_)}, {"lastConfigChangeAt", FormatIsoTime(now_)}};
    s_.AssignServicePorts(definition);
    return definition;
}

void MarathonHandlers::EnsureGroups(const std::string& id) {
    std::string current;
    std::size_t pos = 0;
    while (pos < id.size()) {
        const auto next = id.find('/', pos + 1);
        current = id.substr(0, next);
        if (current.size() > 1 && s_.groups.count(current) == 0) {
            s_.groups[current] = MarathonGroup{current, FormatIsoTime(now_), Json::array()};
        }
        pos = next == std::string::npos ? id.size() : next;
    }
}

MarathonSim::MarathonSim(const SimConfig& config, const SchemaSet& schemas, MesosCluster& cluster)
    : state_(std::make_unique<State>(config, schemas, cluster)) {}

MarathonSim::~MarathonSim() = default;

SimResponse MarathonSim::Handle(const SimRequest& request, double now) {
    MarathonHandlers handlers(*state_, now);
    return handlers.Route(request);
}

}  // namespace orch::sim
