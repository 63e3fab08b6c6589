#pragma once

#include "common/json.hpp"
#include "sim/json_schema.hpp"
#include "sim/marathon_sim.hpp"
#include "sim/mesos_cluster.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"

#include <map>
#include <string>
#include <vector>

namespace orch::sim {

struct MarathonTask {
    std::string id;
    std::string app_id;
    std::size_t agent = 0;
    MesosDemand demand;
    std::vector<int> ports;
    std::string version;
    double staged_at = 0;
    double running_at = 0;
    double healthy_at = -1;  ///< -1: never (no health checks count as healthy only when running)
    double gone_at = -1;     ///< set while the task is being killed
    bool fails = false;      ///< SIM_TASK_FAILURE: fails when it would start running

    bool Running(double now) const { return now >= running_at; }
};

struct MarathonApp {
    std::string id;  ///< absolute, "/group/app"
    Json definition;
    std::vector<MarathonTask> tasks;
    Json last_task_failure;  ///< null until a task failed
    double next_launch = 0;  ///< back-off after failures
    double delay = 0;
    std::map<std::string, int> last_rejections;
    int processed_offers = 0;
    double queued_since = 0;

    int Instances() const { return definition.value("instances", 1); }
    bool HasHealthChecks() const { return definition.contains("healthChecks") && !definition["healthChecks"].empty(); }
    std::string EnvValue(const std::string& key) const;
    MesosDemand Demand() const;
};

struct MarathonDeployment {
    std::string id;
    std::string version;
    std::vector<std::string> affected_apps;
    bool deletion = false;
    double started = 0;
};

struct MarathonGroup {
    std::string id;
    std::string version;
    Json dependencies = Json::array();
};

struct MarathonSim::State {
    const SimConfig& config;
    const SchemaSet& schemas;
    MesosCluster& cluster;
    std::map<std::string, MarathonGroup> groups;
    std::map<std::string, MarathonApp> apps;
    std::vector<MarathonTask> dying;  ///< tasks of deleted/scaled-down apps until they are gone
    std::vector<MarathonDeployment> deployments;
    int next_service_port = 10000;
    int next_host_port = 31000;

    State(const SimConfig& c, const SchemaSet& s, MesosCluster& m) : config(c), schemas(s), cluster(m) {}

    std::size_t TaskCount() const;
    void KillTask(MarathonTask task, double now);
    std::string StartDeployment(const std::vector<std::string>& apps, double now, bool deletion);
    std::vector<std::string> LockingDeployments(const std::string& app_id) const;
    void CancelDeploymentsOf(const std::string& app_id);
    void AssignServicePorts(Json& definition);
    Json AppJson(const MarathonApp& app, double now) const;
    Json TaskJson(const MarathonTask& task, double now) const;
    Json QueueJson(double now) const;
};

/// Marathon's 4xx body: {"message": ...} with optional details.
SimResponse MarathonError(int status, const std::string& message, Json details = nullptr);

/// Checks one app definition (JSON schema + server-side rules). `path_prefix` positions the
/// details inside a group ("/apps(0)"). Returns the 422 details, empty when valid.
Json ValidateMarathonApp(
    const SimConfig& config, const SchemaSet& schemas, const Json& app, const std::string& path_prefix
);
/// Checks a group body; apps are checked one by one so the details name them.
Json ValidateMarathonGroup(const SimConfig& config, const SchemaSet& schemas, const Json& group);

/// "/a/b" from a relative or absolute id under `parent` ("/a").
std::string AbsoluteMarathonId(const std::string& id, const std::string& parent);

}  // namespace orch::sim
