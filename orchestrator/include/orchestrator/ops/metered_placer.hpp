#pragma once

#include "common/metrics.hpp"
#include "orchestrator/placement/placer.hpp"

namespace orch::ops {

/// Counts placement decisions by outcome ("placed", "no_candidate", "error") and records how long
/// they took; rejections by filter are counted inside the placer (orch_placement_rejections_total).
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

}  // namespace orch::ops
