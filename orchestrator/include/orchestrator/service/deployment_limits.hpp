#pragma once

#include <cstdint>

namespace orch::service {

/// Bounds on the work one deployment may ask for, whoever asks (POST, PUT, schedule events).
struct DeploymentLimits {
    /// Node instances (resource rows) per deployment: config `deployments.max_instances`.
    std::int64_t max_instances = 1000;
};

}  // namespace orch::service
