#pragma once

#include "common/result.hpp"
#include "orchestrator/domain/deployment.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace orch::workflow {

/// A group's lease terms: its SLA's `lease` entry over the operator's `leases.*` defaults
/// (docs/lifecycle.md "Leases").
struct LeasePolicy {
    std::optional<std::chrono::milliseconds> default_duration;  ///< none: no lease unless asked
    std::optional<std::chrono::milliseconds> maximum;           ///< none: any future time
    domain::LeaseAction action = domain::LeaseAction::kDelete;
};

/// Where the API reads a group's lease terms when a deployment is created or renewed. May block
/// (SLAM); called from request handlers, which run off the I/O threads.
class LeasePolicySource {
   public:
    virtual ~LeasePolicySource() = default;
    /// `group` may be empty (no group: the operator's defaults). `access_token` is the caller's,
    /// forwarded to SLAM and never logged.
    virtual Result<LeasePolicy> ForGroup(
        const std::string& group, const std::string& issuer, const std::string& access_token
    ) = 0;
};

/// The lease end a create or renewal gets: the requested one (must be after `now` and within
/// the maximum), or the default when none was asked for (create only: `use_default`).
/// 400 errors name the field `expiresAt` and, when exceeded, the maximum.
Result<std::optional<domain::TimePoint>> ResolveExpiry(
    const std::optional<domain::TimePoint>& requested,
    const LeasePolicy& policy,
    domain::TimePoint now,
    bool use_default
);

}  // namespace orch::workflow
