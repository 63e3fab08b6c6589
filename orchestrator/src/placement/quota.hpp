#pragma once

#include "evaluation.hpp"
#include "orchestrator/placement/usage.hpp"

#include <optional>
#include <string>

namespace orch::placement {

/// Quota checks for one placement. Usage is read at most once, and only when some quota applies.
class QuotaCheck {
   public:
    QuotaCheck(const PlacementContext& context, UsageSource& usage);

    /// Appends every exceeded quota (configured group/user quotas, then the service's SLA targets).
    void Check(Evaluation& eval);
    /// Reasons that hold for every service (configured quotas), for the decision's notes.
    const std::vector<std::string>& global_reasons() const { return global_reasons_; }
    /// Whether the last Check rejected for a reason that cannot pass by waiting: the request
    /// alone asks more than a limit (otherwise the quota is only full now, and frees up).
    bool never_fits() const { return never_fits_; }
    /// The group's configured quota (placement.quotas), its GPU classes named only by name
    /// declared as the catalogue's SLAs declare them: what admission reserves against.
    const GroupQuota& configured() const { return configured_; }

   private:
    GroupQuota SlaQuotaOf(const Evaluation& eval) const;
    const Usage* LoadUsage();
    void CheckGpuClasses(
        const std::vector<GpuClassLimit>& limits,
        const std::string& who,
        const std::string& where,
        std::vector<std::string>& out
    );
    void CheckScope(
        const QuotaLimits& limits,
        const ResourceTotals& used,
        const std::string& who,
        const std::string& where,
        std::vector<std::string>& out,
        bool& never,
        const QuotaLimits& reported = {}
    );

    const PlacementContext& context_;
    UsageSource& source_;
    ResourceTotals request_;
    GroupQuota configured_;
    bool loaded_ = false;
    std::optional<Usage> usage_;
    std::string usage_error_;
    bool global_done_ = false;
    std::vector<std::string> global_reasons_;
    bool global_never_fits_ = false;
    bool never_fits_ = false;
};

/// Limits from an SLA service's targets: num_cpus, mem_size (MB), num_gpus (or gpus) and instances;
/// total_limit for the group, user_limit per user.
GroupQuota SlaQuota(const cmdb::SlaService& service);

}  // namespace orch::placement
