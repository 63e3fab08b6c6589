#include "orchestrator/ops/callback_metrics.hpp"

#include <string>

namespace orch::ops {

CallbackMetrics::CallbackMetrics(metrics::Registry& registry)
    : tries_(registry.AddCounter("orch_callback_deliveries_total", "Callback delivery tries by outcome", {"outcome"})),
      // Seconds to a day: a first try is made within a second, retries back off to minutes, and
      // deliveries are abandoned after workflow.callback_max_age (24 h by default).
      age_(registry.AddHistogram(
          "orch_callback_delivery_age_seconds",
          "Time from a deployment's state change to a try of its callback, by outcome",
          {"outcome"},
          {0.1, 1, 5, 30, 120, 600, 3600, 21600, 86400}
      )) {}

void CallbackMetrics::CallbackTried(workflow::CallbackOutcome outcome, std::chrono::milliseconds age) {
    const std::string label(workflow::CallbackOutcomeName(outcome));
    tries_.With({label}).Inc();
    age_.With({label}).Observe(std::chrono::duration<double>(age).count());
}

}  // namespace orch::ops
