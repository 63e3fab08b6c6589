#pragma once

#include <cstddef>
#include <string_view>

namespace orch::placement {

/// The filters that reject services, in the order placement applies them.
enum class RejectionFilter { kSla, kCatalogue, kKind, kIdentity, kPolicy, kVmMatch, kCapacity, kQuota, kMonitoring };
inline constexpr std::size_t kRejectionFilterCount = 9;

/// Its stable name ("sla", "catalogue", "kind", "identity", "policy", "vm_match", "capacity",
/// "quota", "monitoring"): the label of orch_placement_rejections_total.
std::string_view RejectionFilterName(RejectionFilter filter);

/// What a placement rejected, for metrics: ops' PlacementRejectionMetrics implements it and main
/// gives it to the placer, so placement never touches the metrics registry. Called on the thread
/// placing, once per filter that rejected something, at the end of a placement: must not block.
class PlacementObserver {
   public:
    virtual ~PlacementObserver() = default;
    /// `reasons` (> 0) reasons were given by `filter` in one placement.
    virtual void Rejected(RejectionFilter filter, std::size_t reasons) = 0;
};

}  // namespace orch::placement
