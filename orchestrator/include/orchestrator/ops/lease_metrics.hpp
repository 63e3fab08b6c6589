#pragma once

#include "common/metrics.hpp"
#include "orchestrator/workflow/lease_sweep.hpp"

namespace orch::ops {

/// The lease sweep's observer (docs/lifecycle.md "Leases"): warnings this process recorded
/// (orch_lease_warnings_total) and what its expiry steps did (orch_lease_expiries_total, by
/// action delete|stop and outcome deleting|stopping|stopped|busy|given_up). Per process, as each
/// replica counts what it wrote; sum over replicas for the whole.
class LeaseMetrics final : public workflow::LeaseObserver {
   public:
    explicit LeaseMetrics(metrics::Registry& registry);
    void OnWarning() override;
    void OnExpiry(workflow::LeaseAction action, workflow::LeaseExpiryOutcome outcome) override;

   private:
    metrics::Family<metrics::Counter>& warnings_;
    metrics::Family<metrics::Counter>& expiries_;
};

}  // namespace orch::ops
