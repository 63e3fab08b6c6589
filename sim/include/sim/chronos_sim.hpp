#pragma once

#include "common/json.hpp"
#include "sim/mesos_cluster.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_http.hpp"

#include <memory>
#include <set>
#include <string>

namespace orch::sim {

/// A wire-faithful simulation of the Chronos REST API (/v1/scheduler/...): ISO 8601 scheduled
/// and dependent jobs, runs on the shared Mesos agents with retries, success/error counters,
/// search, summary, graph, manual runs and deletion.
///
/// Chronos publishes no JSON schema; job bodies are checked field by field against the fields
/// its JobDeserializer reads (types, name pattern, schedule syntax, schedule xor parents, known
/// parents). Unlike the real server, unknown fields are rejected (400) so client bugs surface;
/// `gpus` is accepted only when the site's Chronos is configured with GPU support and is
/// otherwise dropped silently, as upstream Chronos does.
///
/// Job behaviour can be steered through its environment (simulator-only knobs): SIM_EXIT_CODE=<n>
/// makes every run fail; SIM_RUN_SECONDS=<s> sets how long a run takes.
///
/// Not thread-safe: the owner (SiteSim) serialises calls.
class ChronosSim {
   public:
    ChronosSim(const SimConfig& config, MesosCluster& cluster);
    ~ChronosSim();
    ChronosSim(const ChronosSim&) = delete;
    ChronosSim& operator=(const ChronosSim&) = delete;

    SimResponse Handle(const SimRequest& request, double now);
    void Advance(double now, const std::set<std::string>& exhausted);
    Json Objects() const;

   private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Field-level validation of a Chronos job body; empty when valid.
std::string ValidateChronosJob(const Json& job, bool dependent);

}  // namespace orch::sim
