#pragma once

#include "common/metrics.hpp"
#include "orchestrator/workflow/admission_observer.hpp"

#include <map>
#include <mutex>
#include <set>
#include <string>

namespace orch::ops {

/// Admission's observer (docs/admission.md, "Queue metrics"): per issuer and group, the requests
/// waiting (orch_admission_queue_length) and the group's fair share (orch_admission_share), as
/// this replica's latest place step of that issuer computed them, and the time from creation to
/// admission (orch_admission_wait_seconds). Place steps run on several workers: calls may be
/// concurrent.
class AdmissionMetrics final : public workflow::AdmissionObserver {
   public:
    explicit AdmissionMetrics(metrics::Registry& registry);
    void QueueComputed(const std::string& issuer, const std::vector<workflow::GroupQueueFigures>& groups) override;
    void Admitted(const std::string& issuer, const std::string& group, double wait_seconds) override;

   private:
    metrics::Family<metrics::Gauge>& length_;
    metrics::Family<metrics::Gauge>& share_;
    metrics::Family<metrics::Histogram>& wait_;
    std::mutex mutex_;  // guards seen_
    /// Groups reported per issuer, so a group whose queue emptied reads 0, not its last length.
    std::map<std::string, std::set<std::string>> seen_;
};

}  // namespace orch::ops
