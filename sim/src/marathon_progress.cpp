// Marathon state progression: launching tasks on the Mesos agents, failures with back-off,
// health, scale-down and kills, deployment completion; and the JSON views of that state.
#include "common/uuid.hpp"
#include "marathon_model.hpp"
#include "sim/sim_clock.hpp"

#include <algorithm>

namespace orch::sim {
namespace {

bool Healthy(const MarathonTask& task, double now) {
    return task.healthy_at >= 0 && now >= task.healthy_at;
}

bool Converged(const MarathonApp& app, double now) {
    if (static_cast<int>(app.tasks.size()) != app.Instances()) {
        return false;
    }
    return std::all_of(app.tasks.begin(), app.tasks.end(), [&](const MarathonTask& t) {
        return t.Running(now) && (!app.HasHealthChecks() || Healthy(t, now));
    });
}

std::string TaskIdFor(const std::string& app_id) {
    std::string base = app_id.substr(1);
    std::replace(base.begin(), base.end(), '/', '_');
    return base + "." + RandomUuid();
}

}  // namespace

std::string MarathonApp::EnvValue(const std::string& key) const {
    const auto env = definition.find("env");
    if (env == definition.end() || !env->is_object()) {
        return "";
    }
    const auto it = env->find(key);
    return it != env->end() && it->is_string() ? it->get<std::string>() : "";
}

MesosDemand MarathonApp::Demand() const {
    MesosDemand d;
    d.cpus = definition.value("cpus", 1.0);
    d.mem_mb = definition.value("mem", 128.0);
    d.disk_mb = definition.value("disk", 0.0);
    d.gpus = static_cast<int>(definition.value("gpus", 0.0));
    return d;
}

std::size_t MarathonSim::State::TaskCount() const {
    std::size_t n = dying.size();
    for (const auto& [id, app] : apps) {
        n += app.tasks.size();
    }
    return n;
}

void MarathonSim::State::KillTask(MarathonTask task, double now) {
    task.gone_at = now + config.timing.kill;
    dying.push_back(std::move(task));
}

std::string MarathonSim::State::StartDeployment(const std::vector<std::string>& affected, double now, bool deletion) {
    MarathonDeployment d;
    d.id = RandomUuid();
    d.version = FormatIsoTime(now);
    d.affected_apps = affected;
    d.deletion = deletion;
    d.started = now;
    deployments.push_back(d);
    return d.id;
}

std::vector<std::string> MarathonSim::State::LockingDeployments(const std::string& app_id) const {
    std::vector<std::string> out;
    for (const auto& d : deployments) {
        if (std::find(d.affected_apps.begin(), d.affected_apps.end(), app_id) != d.affected_apps.end()) {
            out.push_back(d.id);
        }
    }
    return out;
}

void MarathonSim::State::CancelDeploymentsOf(const std::string& app_id) {
    for (auto& d : deployments) {
        d.affected_apps.erase(
            std::remove(d.affected_apps.begin(), d.affected_apps.end(), app_id), d.affected_apps.end()
        );
    }
    deployments.erase(
        std::remove_if(deployments.begin(), deployments.end(), [](const auto& d) { return d.affected_apps.empty(); }),
        deployments.end()
    );
}

void MarathonSim::State::AssignServicePorts(Json& definition) {
    auto assign = [&](Json& list, const char* field) {
        if (!list.is_array()) {
            return;
        }
        for (auto& entry : list) {
            if (entry.is_object() && entry.value(field, 0) == 0) {
                entry[field] = next_service_port++;
            }
        }
    };
    if (definition.contains("portDefinitions")) {
        assign(definition["portDefinitions"], "port");
    }
    if (definition.contains("container") && definition["container"].contains("portMappings")) {
        assign(definition["container"]["portMappings"], "servicePort");
    }
    if (definition.contains("container") && definition["container"].contains("docker") &&
        definition["container"]["docker"].contains("portMappings")) {
        assign(definition["container"]["docker"]["portMappings"], "servicePort");
    }
}

void MarathonSim::Advance(double now, const std::set<std::string>& exhausted) {
    auto& s = *state_;
    for (auto& [id, app] : s.apps) {
        while (static_cast<int>(app.tasks.size()) > app.Instances()) {
            s.KillTask(app.tasks.back(), now);  // killSelection YOUNGEST_FIRST
            app.tasks.pop_back();
        }
        for (auto it = app.tasks.begin(); it != app.tasks.end();) {
            if (!it->fails || !it->Running(now)) {
                ++it;
                continue;
            }
            app.last_task_failure = {
                {"appId", app.id},
                {"host", s.cluster.agent(it->agent).hostname},
                {"message", app.EnvValue("SIM_TASK_FAILURE")},
                {"state", "TASK_FAILED"},
                {"taskId", it->id},
                {"timestamp", FormatIsoTime(it->running_at)},
                {"version", it->version},
                {"slaveId", "agent-" + std::to_string(it->agent)},
            };
            s.cluster.Release(it->agent, it->demand);
            it = app.tasks.erase(it);
            const double base = app.definition.value("backoffSeconds", 1.0);
            const double factor = app.definition.value("backoffFactor", 1.15);
            const double cap = app.definition.value("maxLaunchDelaySeconds", 300.0);
            app.delay = app.delay == 0 ? base : std::min(app.delay * factor, cap);
            app.next_launch = now + app.delay;
        }
        while (static_cast<int>(app.tasks.size()) < app.Instances() && now >= app.next_launch &&
               s.TaskCount() < s.config.max_objects) {
            const MesosDemand demand = app.Demand();
            auto placement = s.cluster.Place(
                demand, app.definition.value("constraints", Json::array()), s.config.marathon_gpu_restricted, exhausted
            );
            ++app.processed_offers;
            app.last_rejections = placement.rejections;
            if (!placement.agent) {
                break;
            }
            MarathonTask task;
            task.id = TaskIdFor(app.id);
            task.app_id = app.id;
            task.agent = *placement.agent;
            task.demand = demand;
            task.version = app.definition.value("version", "");
            task.staged_at = now;
            task.running_at = now + s.config.timing.task_start;
            if (app.HasHealthChecks() && app.EnvValue("SIM_UNHEALTHY").empty()) {
                task.healthy_at = task.running_at + s.config.timing.health;
            }
            task.fails = !app.EnvValue("SIM_TASK_FAILURE").empty();
            const std::size_t ports =
                app.definition.value("portDefinitions", Json::array()).size() +
                app.definition.value("container", Json::object()).value("portMappings", Json::array()).size();
            for (std::size_t p = 0; p < ports; ++p) {
                task.ports.push_back(s.next_host_port++);
            }
            app.tasks.push_back(std::move(task));
        }
        if (static_cast<int>(app.tasks.size()) >= app.Instances()) {
            app.queued_since = now;
        }
    }
    for (auto it = s.dying.begin(); it != s.dying.end();) {
        if (now >= it->gone_at) {
            s.cluster.Release(it->agent, it->demand);
            it = s.dying.erase(it);
        } else {
            ++it;
        }
    }
    auto finished = [&](const MarathonDeployment& d) {
        if (d.deletion) {
            return std::none_of(s.dying.begin(), s.dying.end(), [&](const MarathonTask& t) {
                return std::find(d.affected_apps.begin(), d.affected_apps.end(), t.app_id) != d.affected_apps.end();
            });
        }
        return std::all_of(d.affected_apps.begin(), d.affected_apps.end(), [&](const std::string& app_id) {
            const auto app = s.apps.find(app_id);
            return app == s.apps.end() || Converged(app->second, now);
        });
    };
    s.deployments.erase(std::remove_if(s.deployments.begin(), s.deployments.end(), finished), s.deployments.end());
}

Json MarathonSim::State::TaskJson(const MarathonTask& task, double now) const {
    const auto& agent = cluster.agent(task.agent);
    Json out = {
        {"id", task.id},
        {"appId", task.app_id},
        {"host", agent.hostname},
        {"slaveId", "agent-" + std::to_string(task.agent)},
        {"ports", task.ports},
        {"stagedAt", FormatIsoTime(task.staged_at)},
        {"state", task.gone_at >= 0 ? "TASK_KILLING" : (task.Running(now) ? "TASK_RUNNING" : "TASK_STAGING")},
        {"version", task.version},
        {"ipAddresses",
         Json::array({{{"ipAddress", "10.0.1." + std::to_string(task.agent + 10)}, {"protocol", "IPv4"}}})},
    };
    if (task.Running(now)) {
        out["startedAt"] = FormatIsoTime(task.running_at);
    }
    const auto app = apps.find(task.app_id);
    if (app != apps.end() && app->second.HasHealthChecks() && task.Running(now)) {
        out["healthCheckResults"] =
            Json::array({{{"alive", task.healthy_at >= 0 && now >= task.healthy_at}, {"taskId", task.id}}});
    }
    return out;
}

Json MarathonSim::State::AppJson(const MarathonApp& app, double now) const {
    Json out = app.definition;
    int staged = 0;
    int running = 0;
    int healthy = 0;
    int unhealthy = 0;
    Json tasks = Json::array();
    for (const auto& t : app.tasks) {
        tasks.push_back(TaskJson(t, now));
        if (!t.Running(now)) {
            ++staged;
            continue;
        }
        ++running;
        if (Healthy(t, now)) {
            ++healthy;
        } else if (app.HasHealthChecks() && now >= t.running_at + config.timing.health) {
            ++unhealthy;
        }
    }
    out["tasksStaged"] = staged;
    out["tasksRunning"] = running;
    out["tasksHealthy"] = healthy;
    out["tasksUnhealthy"] = unhealthy;
    out["tasks"] = tasks;
    Json deps = Json::array();
    for (const auto& id : LockingDeployments(app.id)) {
        deps.push_back({{"id", id}});
    }
    out["deployments"] = deps;
    if (!app.last_task_failure.is_null()) {
        out["lastTaskFailure"] = app.last_task_failure;
    }
    return out;
}

Json MarathonSim::State::QueueJson(double now) const {
    Json queue = Json::array();
    for (const auto& [id, app] : apps) {
        const int missing = app.Instances() - static_cast<int>(app.tasks.size());
        if (missing <= 0) {
            continue;
        }
        Json reasons = Json::array();
        int declined = 0;
        for (const auto& [reason, count] : app.last_rejections) {
            reasons.push_back({{"reason", reason}, {"declined", count}, {"processed", cluster.size()}});
            declined += count;
        }
        queue.push_back({
            {"app", app.definition},
            {"count", missing},
            {"delay", {{"timeLeftSeconds", std::max(0.0, app.next_launch - now)}, {"overdue", now >= app.next_launch}}},
            {"since", FormatIsoTime(app.queued_since)},
            {"processedOffersSummary",
             {{"processedOffersCount", app.processed_offers > 0 ? static_cast<int>(cluster.size()) : 0},
              {"unusedOffersCount", declined},
              {"rejectSummaryLastOffers", reasons}}},
        });
    }
    return {{"queue", queue}};
}

Json MarathonSim::Objects() const {
    const auto& s = *state_;
    Json groups = Json::array();
    for (const auto& [id, g] : s.groups) {
        groups.push_back(id);
    }
    Json apps = Json::array();
    Json tasks = Json::array();
    for (const auto& [id, app] : s.apps) {
        apps.push_back(id);
        for (const auto& t : app.tasks) {
            tasks.push_back({{"id", t.id}, {"app", id}, {"host", s.cluster.agent(t.agent).hostname}});
        }
    }
    for (const auto& t : s.dying) {
        tasks.push_back({{"id", t.id}, {"app", t.app_id}, {"killing", true}});
    }
    Json deployments = Json::array();
    for (const auto& d : s.deployments) {
        deployments.push_back({{"id", d.id}, {"affectedApps", d.affected_apps}});
    }
    return {{"groups", groups}, {"apps", apps}, {"tasks", tasks}, {"deployments", deployments}};
}

}  // namespace orch::sim
