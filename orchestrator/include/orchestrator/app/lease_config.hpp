#pragma once

#include "cmdb/sla_source.hpp"
#include "common/config.hpp"
#include "orchestrator/workflow/lease_policy.hpp"
#include "orchestrator/workflow/lease_sweep.hpp"

#include <set>
#include <string>

namespace orch::app {

/// `leases.*` (docs/configuration.md, docs/lifecycle.md "Leases"): the operator's default lease
/// terms and the sweep's lead times and interval. Errors name the key.
struct LeaseConfig {
    workflow::LeasePolicy defaults;
    workflow::LeaseSweepOptions sweep;
};
Result<LeaseConfig> ParseLeaseConfig(const ConfigTree& tree);
std::set<std::string> LeaseConfigKeys();

/// A group's terms: its SLA's `lease` entry (cmdb::LeaseTerms) over the operator's defaults.
/// A group without an SLA, or SLAs that cannot be read now, get the defaults (logged): a lease
/// must not make creates fail while SLAM is down.
class SlaLeasePolicies final : public workflow::LeasePolicySource {
   public:
    /// `slas` may be null (no SLA source: the defaults for everyone); it must outlive this.
    SlaLeasePolicies(const workflow::LeasePolicy& defaults, cmdb::SlaSource* slas) : defaults_(defaults), slas_(slas) {}

    Result<workflow::LeasePolicy> ForGroup(
        const std::string& group, const std::string& issuer, const std::string& access_token
    ) override;

   private:
    workflow::LeasePolicy defaults_;
    cmdb::SlaSource* slas_;
};

}  // namespace orch::app
