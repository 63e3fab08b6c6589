#pragma once

#include "common/metrics.hpp"
#include "orchestrator/placement/placement_observer.hpp"
#include "orchestrator/placement/placer.hpp"

namespace orch::ops {

/// Counts placement decisions by outcome ("placed", "no_candidate", "error") and records how long
/// they took; rejections by filter are counted by PlacementRejectionMetrics, the placer's observer.
class MeteredPlacer final : public placement::Placer {
   public:
    MeteredPlacer(placement::Placer& inner, metrics::Registry& registry);
    Result<placement::PlacementDecision> Place(const placement::PlacementRequest& request) override;
    std::map<std::string, std::string> ConfigurationEndpoints() const override {
        return inner_.ConfigurationEndpoints();
    }

   private:
    placement::Placer& inner_;
    metrics::Family<metrics::Counter>& decisions_;
    metrics::Family<metrics::Histogram>& latency_;
};

/// Counts the reasons placements gave for rejecting services, by filter
/// (orch_placement_rejections_total); main makes it the default placer's observer.
class PlacementRejectionMetrics final : public placement::PlacementObserver {
   public:
    explicit PlacementRejectionMetrics(metrics::Registry& registry);
    void Rejected(placement::RejectionFilter filter, std::size_t reasons) override;

   private:
    metrics::Family<metrics::Counter>& rejections_;
};

}  // namespace orch::ops
