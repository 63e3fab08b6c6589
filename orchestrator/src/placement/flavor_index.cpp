#include "orchestrator/placement/flavor_index.hpp"

#include "gpu_model.hpp"

#include <algorithm>
#include <tuple>

namespace orch::placement {
namespace {

bool SizeFits(const FlavorNeed& need, int gpus, int vcpus, std::uint64_t ram_mb, std::uint64_t disk_gb) {
    return gpus >= need.gpu.count && static_cast<double>(vcpus) >= need.cpus && ram_mb >= need.mem_mb &&
           disk_gb * 1024 >= need.disk_mb;
}

std::optional<std::uint64_t> GpuMemory(const cmdb::Flavor& flavor) {
    return flavor.gpu_memory_mb ? flavor.gpu_memory_mb : MemoryFromModelName(flavor.gpu_model);
}

bool GpuMemoryFits(const FlavorNeed& need, std::optional<std::uint64_t> memory) {
    return !need.gpu.memory_mb || (memory && *memory >= *need.gpu.memory_mb);
}

bool GpuKindFits(const FlavorNeed& need, std::string_view vendor, std::string_view model) {
    return SameWord(need.gpu.vendor, vendor) && GpuModelMatches(need.gpu.model, model);
}

auto SizeKey(const cmdb::Flavor& f) {
    return std::tuple(f.gpus, f.vcpus, f.ram_mb, f.disk_gb);
}

}  // namespace

const cmdb::Flavor* ScanSmallestFlavor(const FlavorNeed& need, const std::vector<cmdb::Flavor>& flavors) {
    const cmdb::Flavor* best = nullptr;
    for (const auto& f : flavors) {
        if (!SizeFits(need, f.gpus, f.vcpus, f.ram_mb, f.disk_gb)) {
            continue;
        }
        if (need.gpu.count > 0 &&
            !(GpuKindFits(need, f.gpu_vendor, f.gpu_model) && GpuMemoryFits(need, GpuMemory(f)))) {
            continue;
        }
        if (best == nullptr || SizeKey(f) < SizeKey(*best)) {
            best = &f;
        }
    }
    return best;
}

FlavorIndex::FlavorIndex(const cmdb::Catalogue& catalogue) : providers_(catalogue.providers()) {
    std::unordered_map<std::string, std::uint32_t> interned;
    for (const auto& provider : providers_) {
        for (const auto& service : provider->services) {
            for (const auto& tenant : service.tenants) {
                AddTenant(tenant, interned);
            }
        }
    }
}

void FlavorIndex::AddTenant(const cmdb::Tenant& tenant, std::unordered_map<std::string, std::uint32_t>& interned) {
    struct Keyed {
        std::uint32_t key;
        Record record;
    };
    std::vector<Keyed> rows;
    rows.reserve(tenant.flavors.size());
    std::string name;
    for (std::uint32_t i = 0; i < tenant.flavors.size(); ++i) {
        const auto& f = tenant.flavors[i];
        // Vendor and model joined by a byte neither contains, so distinct pairs never collide.
        name.assign(f.gpu_vendor).push_back('\n');
        name.append(f.gpu_model);
        const auto [it, added] = interned.try_emplace(name, static_cast<std::uint32_t>(keys_.size()));
        if (added) {
            keys_.push_back({f.gpu_vendor, f.gpu_model});
        }
        const auto memory = GpuMemory(f);
        rows.push_back(
            {it->second, {f.gpus, f.vcpus, f.ram_mb, f.disk_gb, memory.value_or(0), memory.has_value(), i, &f}}
        );
    }
    std::sort(rows.begin(), rows.end(), [](const Keyed& a, const Keyed& b) {
        const auto& x = a.record;
        const auto& y = b.record;
        return std::tie(a.key, x.gpus, x.vcpus, x.ram_mb, x.disk_gb, x.position) <
               std::tie(b.key, y.gpus, y.vcpus, y.ram_mb, y.disk_gb, y.position);
    });
    const auto first_group = static_cast<std::uint32_t>(groups_.size());
    const auto first_record = static_cast<std::uint32_t>(records_.size());
    for (const auto& row : rows) {
        const auto at = static_cast<std::uint32_t>(records_.size());
        if (groups_.size() == first_group || groups_.back().key != row.key) {
            groups_.push_back({row.key, at, at});
        }
        records_.push_back(row.record);
        groups_.back().end = at + 1;
    }
    tenants_[&tenant] = {
        first_group,
        static_cast<std::uint32_t>(groups_.size()),
        first_record,
        static_cast<std::uint32_t>(records_.size()),
        true};
}

FlavorIndex::Query FlavorIndex::Compile(const FlavorNeed& need) const {
    Query query{need, std::vector<bool>(keys_.size(), true)};
    if (need.gpu.count > 0) {
        for (std::size_t k = 0; k < keys_.size(); ++k) {
            query.group_ok[k] = GpuKindFits(need, keys_[k].vendor, keys_[k].model);
        }
    }
    return query;
}

void FlavorIndex::PrefetchRecords(const TenantSpan& span, const Query& query) const {
    if (!span.known) {
        return;
    }
    for (auto g = span.begin; g < span.end; ++g) {
        const Group& group = groups_[g];
        if (!query.group_ok[group.key]) {
            continue;
        }
        // The binary search on GPUs starts in the middle; the walk reads on from there.
        const auto* middle = records_.data() + group.begin + (group.end - group.begin) / 2;
        __builtin_prefetch(middle);
        __builtin_prefetch(reinterpret_cast<const char*>(middle) + 64);
    }
}

FlavorIndex::TenantSpan FlavorIndex::SpanOf(const cmdb::Tenant& tenant) const {
    const auto found = tenants_.find(&tenant);
    return found == tenants_.end() ? TenantSpan{} : found->second;
}

const cmdb::Flavor* FlavorIndex::Smallest(const cmdb::Tenant& tenant, const Query& query) const {
    return Smallest(tenant, SpanOf(tenant), query);
}

const cmdb::Flavor* FlavorIndex::Smallest(const cmdb::Tenant& tenant, TenantSpan span, const Query& query, Size* size)
    const {
    if (!span.known) {
        const auto* flavor = ScanSmallestFlavor(query.need, tenant.flavors);
        if (flavor != nullptr && size != nullptr) {
            *size = {flavor->gpus, flavor->vcpus, flavor->ram_mb};
        }
        return flavor;
    }
    const auto& need = query.need;
    const auto key = [](const Record& r) {
        return std::tie(r.gpus, r.vcpus, r.ram_mb, r.disk_gb, r.position);
    };
    const Record* best = nullptr;
    for (auto g = span.begin; g < span.end; ++g) {
        const Group& group = groups_[g];
        if (!query.group_ok[group.key]) {
            continue;
        }
        const auto end = records_.begin() + group.end;
        auto it = std::partition_point(records_.begin() + group.begin, end, [&](const Record& r) {
            return r.gpus < need.gpu.count;
        });
        // Sorted by size: the first record that fits is this group's smallest, and once a record
        // is not smaller than the best so far, nothing after it in the group can be.
        for (; it != end && (best == nullptr || key(*it) < key(*best)); ++it) {
            std::optional<std::uint64_t> memory;
            if (it->gpu_memory_known) {
                memory = it->gpu_memory_mb;
            }
            const bool memory_ok = need.gpu.count <= 0 || GpuMemoryFits(need, memory);
            if (memory_ok && SizeFits(need, it->gpus, it->vcpus, it->ram_mb, it->disk_gb)) {
                best = &*it;
                break;
            }
        }
    }
    if (best == nullptr) {
        return nullptr;
    }
    if (size != nullptr) {
        *size = {best->gpus, best->vcpus, best->ram_mb};
    }
    return best->flavor;
}

std::shared_ptr<const FlavorIndex> FlavorIndexCache::For(const cmdb::Catalogue& catalogue) {
    const std::lock_guard lock(mutex_);
    const auto& providers = catalogue.providers();
    const bool same = index_ != nullptr && std::equal(
                                               providers.begin(),
                                               providers.end(),
                                               index_->providers().begin(),
                                               index_->providers().end(),
                                               [](const auto& a, const auto& b) { return a.get() == b.get(); }
                                           );
    if (!same) {
        // Built under the lock: placements arriving meanwhile need this very index anyway.
        index_ = std::make_shared<const FlavorIndex>(catalogue);
        ++builds_;
    }
    return index_;
}

std::size_t FlavorIndexCache::builds() const {
    const std::lock_guard lock(mutex_);
    return builds_;
}

}  // namespace orch::placement
