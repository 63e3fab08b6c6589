#pragma once

#include <cstddef>
#include <string_view>

namespace orch::workflow {

/// How a step ended, as the engine saw it.
enum class StepOutcome { kCommit, kRetry, kCancelled };

/// What the engine reports about its work, for metrics: ops' WorkflowMetrics implements it and
/// main passes it in EngineOptions, so the engine never touches the metrics registry. Called with
/// the engine's lock held or on a worker thread: implementations must be quick and never block.
class EngineObserver {
   public:
    virtual ~EngineObserver() = default;
    /// Claimed jobs waiting for a worker, after a change.
    virtual void ReadyJobs(std::size_t count) = 0;
    /// Steps running now, after a change.
    virtual void RunningSteps(std::size_t count) = 0;
    /// A step finished: its job kind ("unknown" when no step is registered for it), how, how long.
    virtual void StepFinished(std::string_view kind, StepOutcome outcome, double seconds) = 0;
};

}  // namespace orch::workflow
