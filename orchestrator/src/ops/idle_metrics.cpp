#include "orchestrator/ops/idle_metrics.hpp"

namespace orch::ops {
namespace {

const char* StepLabel(workflow::IdleStep step) {
    switch (step) {
        case workflow::IdleStep::kStartWatch:
            return "watch";
        case workflow::IdleStep::kReset:
            return "cancel";
        case workflow::IdleStep::kNotify:
            return "notice";
        case workflow::IdleStep::kReclaim:
            return "reclaim";
        case workflow::IdleStep::kStopNext:
            return "stop_next";
        case workflow::IdleStep::kStopGivenUp:
            return "stop_given_up";
        case workflow::IdleStep::kNone:
            break;
    }
    return "none";
}

}  // namespace

IdleMetrics::IdleMetrics(metrics::Registry& registry)
    : gpu_hours_(registry.AddGauge(
          "orch_idle_reclaimed_gpu_hours",
          "GPU-hours given back by idle reclamation, per issuer and group (durable total)",
          {"issuer", "group"}
      )),
      reclamations_(registry.AddGauge(
          "orch_idle_reclamations", "Deployments stopped or deleted as idle, per issuer and group", {"issuer", "group"}
      )),
      steps_(
          registry.AddCounter("orch_idle_steps_total", "Idle reclamation steps this process applied, by step", {"step"})
      ) {}

void IdleMetrics::OnStep(workflow::IdleStep step) {
    steps_.With({StepLabel(step)}).Inc();
}

void IdleMetrics::OnReclaimedTotals(const std::vector<workflow::ReclaimedHours>& totals) {
    for (const auto& t : totals) {
        gpu_hours_.With({t.issuer, t.group}).Set(t.gpu_hours);
        reclamations_.With({t.issuer, t.group}).Set(static_cast<double>(t.reclamations));
    }
}

}  // namespace orch::ops
