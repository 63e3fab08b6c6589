#include "orchestrator/ops/admission_metrics.hpp"

namespace orch::ops {
namespace {

// Waits from admission at once to the operator's bounds (hours, a day, a week).
std::vector<double> WaitBuckets() {
    return {1, 5, 15, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 7 * 24 * 3600};
}

// Groups remembered per issuer to zero emptied queues; past this, new groups are not remembered
// (their length stays at its last value), so hostile group names cannot grow memory without bound.
constexpr std::size_t kMaxRememberedGroups = 1024;

}  // namespace

AdmissionMetrics::AdmissionMetrics(metrics::Registry& registry)
    : length_(registry.AddGauge(
          "orch_admission_queue_length",
          "Requests waiting for admission, per issuer and group (this replica's latest place step)",
          {"issuer", "group"}
      )),
      share_(registry.AddGauge(
          "orch_admission_share",
          "A group's dominant fair share (held plus decayed usage, divided by its weight), per issuer and group",
          {"issuer", "group"}
      )),
      wait_(registry.AddHistogram(
          "orch_admission_wait_seconds",
          "Time from a deployment's creation to the place step that admitted it, per issuer and group",
          {"issuer", "group"},
          WaitBuckets()
      )) {}

void AdmissionMetrics::QueueComputed(
    const std::string& issuer, const std::vector<workflow::GroupQueueFigures>& groups
) {
    const std::lock_guard lock(mutex_);
    auto& seen = seen_[issuer];
    std::set<std::string> now;
    for (const auto& g : groups) {
        length_.With({issuer, g.group}).Set(static_cast<double>(g.waiting));
        share_.With({issuer, g.group}).Set(g.share);
        now.insert(g.group);
    }
    for (const auto& group : seen) {
        if (now.count(group) == 0) {
            length_.With({issuer, group}).Set(0);
        }
    }
    for (const auto& group : now) {
        if (seen.size() >= kMaxRememberedGroups) {
            break;
        }
        seen.insert(group);
    }
}

void AdmissionMetrics::Admitted(const std::string& issuer, const std::string& group, double wait_seconds) {
    wait_.With({issuer, group}).Observe(wait_seconds);
}

}  // namespace orch::ops
