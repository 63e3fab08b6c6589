#pragma once

#include "common/metrics.hpp"
#include "orchestrator/workflow/idle_reclaimer.hpp"

namespace orch::ops {

/// Idle GPU reclamation's observer: the GPU-hours reclaimed per group as recorded in the database
/// (orch_idle_reclaimed_gpu_hours, a gauge every replica refreshes after its sweep, so all show the
/// same durable total), reclamations per group (orch_idle_reclamations) and the steps this process
/// applied (orch_idle_steps_total, step notice|reclaim|cancel|watch).
class IdleMetrics final : public workflow::IdleObserver {
   public:
    explicit IdleMetrics(metrics::Registry& registry);
    void OnStep(workflow::IdleStep step) override;
    void OnReclaimedTotals(const std::vector<workflow::ReclaimedHours>& totals) override;

   private:
    metrics::Family<metrics::Gauge>& gpu_hours_;
    metrics::Family<metrics::Gauge>& reclamations_;
    metrics::Family<metrics::Counter>& steps_;
};

}  // namespace orch::ops
