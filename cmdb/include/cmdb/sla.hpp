#pragma once

#include "common/json.hpp"
#include "common/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace orch::cmdb {

/// SLAM restriction numbers; absent ones stay empty (guaranteed = 0, limit = unlimited when
/// enforced; 0 when the indigo ranker sums them).
struct Restrictions {
    std::optional<double> total_guaranteed, total_limit;
    std::optional<double> instance_guaranteed, instance_limit;
    std::optional<double> user_guaranteed, user_limit;
};

struct SlaTarget {
    std::string type;  ///< computing_time, public_ip, num_cpus, mem_size, and ours: num_gpus, instances
    std::string unit;
    Restrictions restrictions;
    /// What the site reports in use (a Federation Registry `usage` quota); SLAM has none. Quotas
    /// count the larger of this and the orchestrator's own active deployments.
    std::optional<double> reported_usage;
    /// Ours, on num_gpus targets: the limits count only GPUs of this class (docs/admission.md,
    /// "GPU classes"): models matching `gpu_class` or one of `gpu_aliases` (and `gpu_vendor` when
    /// set), or, with `gpu_min_memory_mb`, GPUs with at least that much memory. Empty: every GPU.
    std::string gpu_class;
    std::vector<std::string> gpu_aliases;
    std::string gpu_vendor;
    std::optional<std::uint64_t> gpu_min_memory_mb;
};

struct SlaService {
    std::string type;        ///< computing | storage (older: compute)
    std::string service_id;  ///< CMDB service id
    std::vector<SlaTarget> targets;
};

struct Sla {
    std::string id, customer, provider, start_date, end_date;
    std::vector<SlaService> services;
};

struct Priority {
    std::string sla_id;
    std::string service_id;
    std::optional<double> weight;  ///< normalised by SLAM (raw / max); the ranker fails without one
};

struct Preference {
    std::string service_type;  ///< compute | storage
    std::vector<Priority> priority;
};

/// The group's lease terms (our addition to the SLAM body, `"lease": {"default": "72h",
/// "maximum": "720h", "action": "stop"}`; docs/lifecycle.md "Leases"). Absent members fall back
/// to the operator's defaults (`leases.*`).
struct LeaseTerms {
    std::optional<std::string> default_duration;  ///< a duration text ("72h"), checked by the reader
    std::optional<std::string> maximum_duration;
    std::optional<std::string> action;  ///< "delete" | "stop"
};

/// What SLAM answers for one customer (user group): preferences and SLAs.
struct SlaSet {
    std::string customer;
    std::vector<Preference> preferences;
    std::vector<Sla> slas;
    LeaseTerms lease;

    const Sla* FindSla(const std::string& id) const;
    /// The SLA service entry of `service_id` inside SLA `sla_id`, or null.
    const SlaService* FindSlaService(const std::string& sla_id, const std::string& service_id) const;
    /// Indexes `slas` by id (the parsers call it; call it again after changing `slas`).
    void Reindex();

   private:
    std::unordered_map<std::string, std::size_t> by_id_;
    std::size_t indexed_count_ = 0;
};

/// Parses a SLAM `/preferences/{customer}` body: {"preferences": [{customer, preferences}], "sla": [...]}.
/// The `preferences[].preferences[]` of every entry are flattened into `preferences`.
Result<SlaSet> ParseSlamPreferences(const Json& body, const std::string& customer);

}  // namespace orch::cmdb
