#pragma once

#include "connectors/connector.hpp"
#include "slurm/slurm_rest.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::connectors::slurm {

/// Job comment set just before this connector cancels a job, so that Poll can tell "deleted on
/// purpose" from "cancelled by someone else" (slurmrestd keeps ended jobs for MinJobAge).
inline constexpr std::string_view kCancelledMarker = "orch:deleted";

bool CancelledByUs(const Json& job);

/// Marks and cancels one job. Returns true when the job has ended (or is unknown), false while
/// it is still completing.
ConnectorResult<bool> CancelJob(SlurmRest& rest, std::int64_t job_id);

/// Turns the job records of one deployment into an Observation.
class JobSetView {
   public:
    /// `record` is nullopt when the controller no longer knows the job.
    void Add(
        const std::string& node,
        int index,
        const std::string& name,
        std::int64_t job_id,
        const std::optional<Json>& record
    );
    Observation Observe() const;

   private:
    struct Entry {
        std::string name;
        std::string state;   ///< Slurm job_state, "" when unknown to the controller
        std::string reason;  ///< state_reason
        bool marked = false;
        int exit_status = 0;  ///< raw wait status
    };

    std::vector<Entry> entries_;
    std::vector<InstanceState> instances_;
    std::map<std::string, Json> node_attributes_;
};

}  // namespace orch::connectors::slurm
