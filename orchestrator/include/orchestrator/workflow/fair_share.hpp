#pragma once

// The order in which waiting deployments are admitted (docs/admission.md, "Fair share"). Pure:
// no clock, no store; the caller passes what it read and `now`.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::workflow {

/// An amount of each resource the share is computed over. GPUs are already weighted by class
/// (an A100 may count 2, a T4 0.5, as the operator declares).
struct ShareVector {
    double gpus = 0;
    double cpus = 0;
    double ram_mb = 0;

    ShareVector& operator+=(const ShareVector& other);
};

/// One deployment waiting for admission.
struct WaitingRequest {
    std::string deployment_id;
    std::string group;
    int priority = 0;  ///< higher first, within the group
    std::chrono::system_clock::time_point queued_at;
    ShareVector demand;  ///< what it asks for (GPUs weighted by class)
    /// How long it is expected to run once started (nullopt: unknown); only the admission
    /// cycle's backfill rule reads it (admission_cycle.hpp).
    std::optional<std::chrono::milliseconds> estimate;
};

/// A group's entitlement and its history.
struct GroupAccount {
    double weight = 1;  ///< relative entitlement (2:1:1 → 50/25/25 %); ≤ 0 counts as 1
    ShareVector usage;  ///< decayed resource-hours (DecayedUsage), plus what it holds now
};

struct FairShareOptions {
    /// A request waiting at least this long is ordered before every younger one, oldest first,
    /// whatever its group's share: the anti-starvation rule (0 disables it).
    std::chrono::milliseconds starvation_age{std::chrono::hours(6)};
};

/// The operator's weights per group (2:1:1 → 50/25/25 %), and the weight of every other group.
struct FairShareWeights {
    std::map<std::string, double, std::less<>> groups;
    double default_weight = 1;
    /// What a GPU of a class counts in a group's usage (held now and its history): an A100 2, a
    /// T4 0.5 (workflow.admission_gpu_weights; 1 for a class not listed). Only the classes of a
    /// group's own quota (placement.quotas …gpu_classes) are counted per class.
    std::map<std::string, double, std::less<>> gpu_classes;

    double For(std::string_view group) const;
};

/// `usage` decayed by half every `half_life` over `elapsed`, the DIRAC/Slurm way: last week's
/// GPU-hours count half as much as this week's.
ShareVector DecayedUsage(
    const ShareVector& usage, std::chrono::milliseconds elapsed, std::chrono::milliseconds half_life
);

/// A group's dominant share: the largest fraction of `capacity` it used of any resource,
/// divided by its weight (dominant resource fairness; a resource with no capacity is ignored).
double DominantShare(const ShareVector& usage, const ShareVector& capacity, double weight);

/// Indexes of `waiting` in admission order:
///  1. requests older than `starvation_age`, oldest first;
///  2. the rest by progressive filling: the group with the lowest dominant share (its usage plus
///     the demand of its requests already ordered) gives its next request; within a group higher
///     priority first, then older first, then the deployment id (a total order, so every replica
///     computes the same queue). Groups missing from `accounts` have weight 1 and no usage.
/// O(n log n) for n requests.
std::vector<std::size_t> FairShareOrder(
    const std::vector<WaitingRequest>& waiting,
    const std::map<std::string, GroupAccount, std::less<>>& accounts,
    const ShareVector& capacity,
    std::chrono::system_clock::time_point now,
    const FairShareOptions& options = {}
);

}  // namespace orch::workflow
