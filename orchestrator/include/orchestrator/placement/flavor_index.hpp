#pragma once

#include "cmdb/site_model.hpp"
#include "tosca/deployment_spec.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace orch::placement {

/// What one VM instance needs from a flavor (docs/placement.md, "Flavor matching").
struct FlavorNeed {
    tosca::GpuRequest gpu;  ///< vendor/model/memory are checked only when gpu.count > 0
    double cpus = 0;
    std::uint64_t mem_mb = 0;
    std::uint64_t disk_mb = 0;
};

/// The reference rule, by a scan of every flavor: the smallest fitting flavor by (GPUs, vCPUs,
/// RAM, disk), the first listed on ties; null when none fits. FlavorIndex gives the same answer.
const cmdb::Flavor* ScanSmallestFlavor(const FlavorNeed& need, const std::vector<cmdb::Flavor>& flavors);

/// Every tenant's flavors of one catalogue, laid out for lookups: numbers in one contiguous
/// array, grouped per tenant by interned (GPU vendor, GPU model) and sorted by (GPUs, vCPUs, RAM,
/// disk) inside a group. A placement compares the requested model with each distinct model name
/// of the catalogue once (Compile), then a tenant's answer is a binary search on GPUs per matching
/// group and a short walk to the first flavor that also has the vCPUs, RAM and disk: no strings
/// are touched per flavor. Immutable once built; shared by concurrent placements.
class FlavorIndex {
   public:
    explicit FlavorIndex(const cmdb::Catalogue& catalogue);

    /// A need compiled against this index (which (vendor, model) groups may serve it).
    struct Query {
        FlavorNeed need;
        std::vector<bool> group_ok;  ///< by interned (vendor, model) key
    };
    Query Compile(const FlavorNeed& need) const;
    /// Where a tenant's flavors are in the index; `known` is false for a tenant it lacks.
    struct TenantSpan {
        std::uint32_t begin = 0, end = 0;                ///< into the groups
        std::uint32_t record_begin = 0, record_end = 0;  ///< the records of those groups
        bool known = false;
    };
    TenantSpan SpanOf(const cmdb::Tenant& tenant) const;
    /// Ask the CPU to load what a later Smallest on this tenant reads: a placement looks up
    /// thousands of tenants in turn, each a few cache misses away. First the tenant's groups
    /// (PrefetchGroups, well ahead), then, once those are loaded, the records of the groups the
    /// query may use (PrefetchRecords, a few tenants ahead).
    void PrefetchGroups(const TenantSpan& span) const {
        if (span.known) {
            __builtin_prefetch(groups_.data() + span.begin);
        }
    }
    void PrefetchRecords(const TenantSpan& span, const Query& query) const;
    /// ScanSmallestFlavor(need, tenant.flavors) for a tenant of the indexed catalogue; a tenant
    /// the index does not know is scanned (so a wrong catalogue is slow, never wrong).
    const cmdb::Flavor* Smallest(const cmdb::Tenant& tenant, const Query& query) const;
    /// The chosen flavor's size as the index holds it (reading the flavor object itself would
    /// touch one more cache line per site).
    struct Size {
        int gpus = 0;
        int vcpus = 0;
        std::uint64_t ram_mb = 0;
    };
    /// The same with the tenant's span already looked up (SpanOf of this index); fills `size`
    /// when a flavor is found and `size` is not null.
    const cmdb::Flavor* Smallest(const cmdb::Tenant& tenant, TenantSpan span, const Query& query, Size* size = nullptr)
        const;

    std::size_t flavor_count() const { return records_.size(); }
    std::size_t model_key_count() const { return keys_.size(); }
    /// The providers indexed, held so the flavor pointers stay valid as long as the index.
    const std::vector<std::shared_ptr<const cmdb::Provider>>& providers() const { return providers_; }

   private:
    struct Record {
        int gpus;
        int vcpus;
        std::uint64_t ram_mb;
        std::uint64_t disk_gb;
        std::uint64_t gpu_memory_mb;  ///< declared, else read from the model name
        bool gpu_memory_known;
        std::uint32_t position;  ///< in the tenant's list: the tie-break of the scan
        const cmdb::Flavor* flavor;
    };
    struct Group {
        std::uint32_t key;         ///< into keys_
        std::uint32_t begin, end;  ///< into records_
    };
    struct Key {
        std::string vendor;  ///< as offered (compared case-insensitively)
        std::string model;
    };

    void AddTenant(const cmdb::Tenant& tenant, std::unordered_map<std::string, std::uint32_t>& interned);

    std::vector<std::shared_ptr<const cmdb::Provider>> providers_;
    std::vector<Record> records_;
    std::vector<Group> groups_;
    std::vector<Key> keys_;
    std::unordered_map<const cmdb::Tenant*, TenantSpan> tenants_;
};

/// The FlavorIndex of the catalogue placements currently see, built once per catalogue version:
/// it is reused while the catalogue holds the very same provider objects (sources hand out the
/// same immutable providers until they re-read them) and rebuilt as soon as one differs.
/// Thread-safe.
class FlavorIndexCache {
   public:
    std::shared_ptr<const FlavorIndex> For(const cmdb::Catalogue& catalogue);
    /// How many indexes were built so far (observability and tests).
    std::size_t builds() const;

   private:
    mutable std::mutex mutex_;
    std::shared_ptr<const FlavorIndex> index_;
    std::size_t builds_ = 0;
};

}  // namespace orch::placement
