#pragma once

#include "common/json.hpp"
#include "sim/sim_config.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace orch::sim {

/// What one task needs from an agent.
struct MesosDemand {
    double cpus = 0;
    double mem_mb = 0;
    double disk_mb = 0;
    int gpus = 0;
};

/// The result of offering every agent to one task: where it landed, or why each agent declined.
struct MesosPlacement {
    std::optional<std::size_t> agent;
    std::map<std::string, int> rejections;  ///< Marathon's reject reasons ("InsufficientGpus") -> agents
};

/// The agents of the simulated Mesos cluster and what is allocated on them. Marathon and Chronos
/// share it, as they share one Mesos master on a real site. Not thread-safe (owner serialises).
class MesosCluster {
   public:
    explicit MesosCluster(std::vector<MesosAgentSpec> agents) : agents_(std::move(agents)), used_(agents_.size()) {}

    /// Finds an agent for `demand` honouring Marathon constraints ([field, operator, value?]).
    /// `gpu_restricted`: agents with GPUs decline tasks that need none (Marathon's default).
    /// `exhausted` lists resources a capacity fault declares used up ("cpus", "mem", "gpus", "all").
    MesosPlacement Place(
        const MesosDemand& demand, const Json& constraints, bool gpu_restricted, const std::set<std::string>& exhausted
    );
    void Release(std::size_t agent, const MesosDemand& demand);

    const MesosAgentSpec& agent(std::size_t index) const { return agents_[index]; }
    std::size_t size() const { return agents_.size(); }
    /// Replaces the agents; allocations on agents that keep their hostname are preserved.
    void Reconfigure(std::vector<MesosAgentSpec> agents);
    Json ToJson() const;

   private:
    std::optional<std::string> Reject(
        std::size_t index,
        const MesosDemand& demand,
        const Json& constraints,
        bool gpu_restricted,
        const std::set<std::string>& exhausted
    ) const;

    std::vector<MesosAgentSpec> agents_;
    std::vector<MesosDemand> used_;
};

/// True when `value` satisfies a Marathon LIKE regex (a full match; a leading "(?i)" makes it
/// case-insensitive, as in Java). Invalid regexes never match.
bool MarathonLikeMatches(const std::string& pattern, const std::string& value);

}  // namespace orch::sim
