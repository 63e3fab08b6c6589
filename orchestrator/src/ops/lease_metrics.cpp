#include "orchestrator/ops/lease_metrics.hpp"

#include <string>

namespace orch::ops {

LeaseMetrics::LeaseMetrics(metrics::Registry& registry)
    : warnings_(registry.AddCounter("orch_lease_warnings_total", "Lease warnings this process recorded", {})),
      expiries_(registry.AddCounter(
          "orch_lease_expiries_total",
          "Lease expiry steps this process took, by action (delete|stop) and outcome "
          "(deleting|stopping|stopped|busy|given_up)",
          {"action", "outcome"}
      )) {}

void LeaseMetrics::OnWarning() {
    warnings_.With({}).Inc();
}

void LeaseMetrics::OnExpiry(workflow::LeaseAction action, workflow::LeaseExpiryOutcome outcome) {
    expiries_
        .With({std::string(domain::LeaseActionName(action)), std::string(workflow::LeaseExpiryOutcomeName(outcome))})
        .Inc();
}

}  // namespace orch::ops
