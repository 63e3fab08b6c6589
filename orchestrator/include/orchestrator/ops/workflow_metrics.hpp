#pragma once

#include "common/metrics.hpp"
#include "orchestrator/workflow/engine_observer.hpp"

namespace orch::ops {

/// The workflow engine's observer: queue depths (orch_workflow_queue_depth, state ready|running)
/// and step durations by job kind and outcome (orch_workflow_job_duration_seconds). Main passes
/// it in EngineOptions; several engines of one process share it and their figures add up.
class WorkflowMetrics final : public workflow::EngineObserver {
   public:
    explicit WorkflowMetrics(metrics::Registry& registry);
    void ReadyJobs(std::size_t count) override;
    void RunningSteps(std::size_t count) override;
    void StepFinished(std::string_view kind, workflow::StepOutcome outcome, double seconds) override;

   private:
    metrics::Family<metrics::Histogram>& job_seconds_;
    metrics::Family<metrics::Gauge>& queue_;
};

}  // namespace orch::ops
