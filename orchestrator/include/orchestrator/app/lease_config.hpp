#pragma once

#include "cmdb/sla_source.hpp"
#include "common/config.hpp"
#include "orchestrator/workflow/lease_policy.hpp"
#include "orchestrator/workflow/lease_sweep.hpp"

#include <set>
#include <string>
#include <utility>

namespace orch::app {

/// `leases.*` (docs/configuration.md, docs/lifecycle.md "Leases"): the operator's default lease
/// terms and the sweep's lead times and interval. Errors name the key.
struct LeaseConfig {
    workflow::LeasePolicy defaults;
    workflow::LeaseSweepOptions sweep;
    std::string default_group;  ///< `placement.default_group`: the SLA of deployments without a group
};
Result<LeaseConfig> ParseLeaseConfig(const ConfigTree& tree);
std::set<std::string> LeaseConfigKeys();

/// A group's terms: its SLA's `lease` entry (cmdb::LeaseTerms) over the operator's defaults.
/// A group without an SLA, or SLAs that cannot be read now, get the defaults (logged): a lease
/// must not make creates fail while SLAM is down. No group: `default_group`'s SLA, as placement
/// picks it (the original takes the user's default group); none configured: the defaults.
class SlaLeasePolicies final : public workflow::LeasePolicySource {
   public:
    /// `slas` may be null (no SLA source: the defaults for everyone); it must outlive this.
    SlaLeasePolicies(const workflow::LeasePolicy& defaults, cmdb::SlaSource* slas, std::string default_group = "")
        : defaults_(defaults), slas_(slas), default_group_(std::move(default_group)) {}

    Result<workflow::LeasePolicy> ForGroup(
        const std::string& group, const std::string& issuer, const std::string& access_token
    ) override;

   private:
    workflow::LeasePolicy defaults_;
    cmdb::SlaSource* slas_;
    std::string default_group_;
};

}  // namespace orch::app
