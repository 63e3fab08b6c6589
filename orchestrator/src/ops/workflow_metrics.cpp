#include "orchestrator/ops/workflow_metrics.hpp"

#include <string>

namespace orch::ops {
namespace {

const char* OutcomeLabel(workflow::StepOutcome outcome) {
    switch (outcome) {
        case workflow::StepOutcome::kCommit:
            return "commit";
        case workflow::StepOutcome::kRetry:
            return "retry";
        case workflow::StepOutcome::kCancelled:
            return "cancelled";
    }
    return "commit";
}

}  // namespace

WorkflowMetrics::WorkflowMetrics(metrics::Registry& registry)
    : job_seconds_(registry.AddHistogram(
          "orch_workflow_job_duration_seconds",
          "Time a workflow step took, by job kind and outcome",
          {"kind", "outcome"},
          metrics::LatencyBuckets()
      )),
      queue_(registry.AddGauge(
          "orch_workflow_queue_depth",
          "Claimed jobs waiting for a worker (ready) and steps running (running)",
          {"state"}
      )) {}

void WorkflowMetrics::ReadyJobs(std::size_t count) {
    queue_.With({"ready"}).Set(static_cast<double>(count));
}

void WorkflowMetrics::RunningSteps(std::size_t count) {
    queue_.With({"running"}).Set(static_cast<double>(count));
}

void WorkflowMetrics::StepFinished(std::string_view kind, workflow::StepOutcome outcome, double seconds) {
    job_seconds_.With({std::string(kind), OutcomeLabel(outcome)}).Observe(seconds);
}

}  // namespace orch::ops
