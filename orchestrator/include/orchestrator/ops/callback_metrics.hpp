#pragma once

#include "common/metrics.hpp"
#include "orchestrator/workflow/callback_deliverer.hpp"

namespace orch::ops {

/// The callback deliverer's observer: tries by outcome (orch_callback_deliveries_total, outcome
/// delivered|failed|abandoned|refused|dropped: every outcome but `delivered` is a failed try) and
/// how long after the state change each try was made (orch_callback_delivery_age_seconds). The
/// outbox's backlog and the age of its oldest delivery are StoreMetrics' (read from the table,
/// so they cover every replica's deliveries).
class CallbackMetrics final : public workflow::CallbackObserver {
   public:
    explicit CallbackMetrics(metrics::Registry& registry);
    void CallbackTried(workflow::CallbackOutcome outcome, std::chrono::milliseconds age) override;

   private:
    metrics::Family<metrics::Counter>& tries_;
    metrics::Family<metrics::Histogram>& age_;
};

}  // namespace orch::ops
