#include "orchestrator/ops/metered_placer.hpp"

#include <chrono>

namespace orch::ops {

MeteredPlacer::MeteredPlacer(placement::Placer& inner, metrics::Registry& registry)
    : inner_(inner),
      decisions_(registry.AddCounter("orch_placement_decisions_total", "Placement decisions by outcome", {"outcome"})),
      latency_(registry.AddHistogram(
          "orch_placement_duration_seconds", "Time a placement decision took", {}, metrics::LatencyBuckets()
      )) {}

Result<placement::PlacementDecision> MeteredPlacer::Place(const placement::PlacementRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    auto decision = inner_.Place(request);
    latency_.With({}).Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const char* outcome = !decision ? "error" : decision->ranked.empty() ? "no_candidate" : "placed";
    decisions_.With({outcome}).Inc();
    return decision;
}

PlacementRejectionMetrics::PlacementRejectionMetrics(metrics::Registry& registry)
    : rejections_(registry.AddCounter(
          "orch_placement_rejections_total", "Reasons placement gave for rejecting a service, by filter", {"reason"}
      )) {}

void PlacementRejectionMetrics::Rejected(placement::RejectionFilter filter, std::size_t reasons) {
    rejections_.With({std::string(placement::RejectionFilterName(filter))}).Inc(static_cast<double>(reasons));
}

}  // namespace orch::ops
