#pragma once

#include "orchestrator/placement/gpu_class.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orch::placement {

enum class PlacementMode {
    kGpuAware,  ///< ours: hard live filters, SLA priority then fit/availability/success/latency
    kIndigo,    ///< the original Cloud Provider Ranker's order, exactly
};

std::string_view PlacementModeName(PlacementMode mode);  ///< "gpu-aware" | "indigo"

/// Weights of the gpu-aware score (normalised by their sum; all ≥ 0).
struct ScoreWeights {
    double fit = 0.4;           ///< fewest wasted GPUs/CPUs/RAM, tightest GPU packing
    double availability = 0.2;  ///< probe up (1), unknown (0.5)
    double success = 0.3;       ///< recent success rate on the service (Laplace-smoothed)
    double latency = 0.1;       ///< probe response time
};

/// A service whose last `failures` attempts all failed, the newest less than `cooldown` ago, is
/// "open": it stays a candidate but is ranked after every other one.
struct BreakerOptions {
    std::size_t failures = 3;
    std::size_t history = 10;  ///< attempts read for the success rate
    std::chrono::milliseconds cooldown{15 * 60 * 1000};
};

/// Limits of one scope; absent = unlimited.
struct QuotaLimits {
    std::optional<double> cpus;
    std::optional<double> ram_mb;
    std::optional<double> gpus;
    std::optional<double> instances;
    /// GPUs per class, on top of `gpus` (which counts every GPU): admission claims a counter per
    /// class the request's GPUs fall in (docs/admission.md, "GPU classes").
    std::vector<GpuClassLimit> gpu_classes;

    bool empty() const { return !cpus && !ram_mb && !gpus && !instances && gpu_classes.empty(); }
};

struct GroupQuota {
    QuotaLimits group;  ///< the whole group, all services
    QuotaLimits user;   ///< each user of the group, all services
    /// What the site reports the group's project uses (Federation Registry usage records); the
    /// group check counts the larger of this and the group's active deployments. SLA quotas only.
    QuotaLimits reported;
};

/// Quotas from configuration (all services together). SLA targets num_cpus, mem_size, num_gpus
/// and instances add per-service limits on top (total_limit for the group, user_limit per user).
struct QuotaOptions {
    bool enabled = true;
    GroupQuota defaults;                       ///< groups without an entry of their own
    std::map<std::string, GroupQuota> groups;  ///< by group name
};

struct PlacementOptions {
    PlacementMode mode = PlacementMode::kGpuAware;
    ScoreWeights weights;
    BreakerOptions breaker;
    QuotaOptions quotas;
    std::size_t max_candidates = 20;  ///< ranked candidates built (verdicts always cover every service)
    std::string default_group;        ///< SLA customer when the request has no user group
};

}  // namespace orch::placement
