#pragma once

#include "common/json.hpp"
#include "sim/json_schema.hpp"
#include "sim/mesos_cluster.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"

#include <memory>
#include <set>
#include <string>

namespace orch::sim {

/// A wire-faithful simulation of the Marathon 1.7 REST API subset the orchestrator uses:
/// groups, apps, tasks, deployments and the launch queue, with tasks placed on the shared Mesos
/// agents. Every app definition is validated against Marathon's published JSON schema plus the
/// server-side GPU/containerizer rules, and rejected with Marathon's 422 body shape.
///
/// Task behaviour can be steered per app through its environment (simulator-only knobs):
/// SIM_TASK_FAILURE=<message> makes every task fail after starting; SIM_UNHEALTHY=1 keeps tasks
/// from ever passing their health checks.
///
/// Not thread-safe: the owner (SiteSim) serialises calls.
class MarathonSim {
   public:
    MarathonSim(const SimConfig& config, const SchemaSet& schemas, MesosCluster& cluster);
    ~MarathonSim();
    MarathonSim(const MarathonSim&) = delete;
    MarathonSim& operator=(const MarathonSim&) = delete;

    /// Answers one request at simulated time `now` (call Advance first).
    SimResponse Handle(const SimRequest& request, double now);
    /// Moves every task, deployment and deletion forward to `now`.
    void Advance(double now, const std::set<std::string>& exhausted);
    /// Every group, app, task and deployment (for leak checks).
    Json Objects() const;

    struct State;  ///< opaque; defined by the implementation

   private:
    std::unique_ptr<State> state_;
};

}  // namespace orch::sim
