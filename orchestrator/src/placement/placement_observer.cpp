#include "orchestrator/placement/placement_observer.hpp"

#include <array>

namespace orch::placement {

std::string_view RejectionFilterName(RejectionFilter filter) {
    static constexpr std::array<std::string_view, kRejectionFilterCount> kNames = {
        "sla", "catalogue", "kind", "identity", "policy", "vm_match", "capacity", "quota", "monitoring"};
    return kNames.at(static_cast<std::size_t>(filter));
}

}  // namespace orch::placement
