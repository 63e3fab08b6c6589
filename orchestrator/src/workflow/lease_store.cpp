#include "orchestrator/workflow/lease_store.hpp"

namespace orch::workflow {

std::string_view LeaseStateName(LeaseState state) {
    switch (state) {
        case LeaseState::kStopping:
            return "STOPPING";
        case LeaseState::kExpired:
            return "EXPIRED";
        case LeaseState::kActive:
            break;
    }
    return "ACTIVE";
}

LeaseState ParseLeaseState(std::string_view name) {
    if (name == "STOPPING") {
        return LeaseState::kStopping;
    }
    if (name == "EXPIRED") {
        return LeaseState::kExpired;
    }
    return LeaseState::kActive;
}

}  // namespace orch::workflow
