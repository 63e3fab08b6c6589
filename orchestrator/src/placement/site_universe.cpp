#include "site_universe.hpp"

#include "gpu_model.hpp"
#include "seen_ids.hpp"

namespace orch::placement {
namespace {

UniverseSite SiteOf(const cmdb::SlaSet& slas, const cmdb::Priority& priority) {
    UniverseSite site;
    site.service_id = priority.service_id;
    site.sla_id = priority.sla_id;
    site.weight = priority.weight;
    const cmdb::Sla* sla = slas.FindSla(priority.sla_id);
    if (sla == nullptr) {
        site.sla_missing = true;
        return site;
    }
    site.provider_id = sla->provider;
    for (const auto& entry : sla->services) {  // FindSlaService without finding the SLA again
        if (entry.service_id == priority.service_id) {
            site.sla_service = &entry;
            break;
        }
    }
    return site;
}

}  // namespace

std::shared_ptr<const SiteUniverse> BuildSiteUniverse(std::shared_ptr<const cmdb::SlaSet> slas, std::string group) {
    auto universe = std::make_shared<SiteUniverse>();
    std::size_t listed = 0;
    for (const auto& preference : slas->preferences) {
        listed += preference.priority.size();
    }
    universe->sites.reserve(listed);
    SeenIds services(listed);
    for (const auto& preference : slas->preferences) {
        if (Lower(preference.service_type) != "compute") {
            continue;
        }
        for (const auto& priority : preference.priority) {
            if (services.Insert(priority.service_id)) {
                universe->sites.push_back(SiteOf(*slas, priority));
            }
        }
    }
    SeenIds providers(universe->sites.size());
    for (const auto& site : universe->sites) {
        if (!site.provider_id.empty() && providers.Insert(site.provider_id)) {
            universe->provider_ids.emplace_back(site.provider_id);
        }
    }
    universe->slas = std::move(slas);
    universe->group = std::move(group);
    return universe;
}

std::shared_ptr<const SiteUniverse> ResolveSiteUniverse(
    const SiteUniverse& universe, const cmdb::Catalogue& catalogue, std::shared_ptr<const FlavorIndex> index
) {
    auto resolved = std::make_shared<SiteUniverse>(universe);
    for (auto& site : resolved->sites) {
        if (site.sla_missing) {
            continue;
        }
        site.service = catalogue.FindService(site.service_id);
        if (site.service == nullptr) {
            continue;
        }
        if (site.provider_id.empty()) {
            site.provider_id = site.service->provider_id;
        }
        site.provider = catalogue.FindProvider(site.provider_id);
        site.tenant = site.service->TenantFor(resolved->group);
        if (site.tenant != nullptr) {
            site.flavors = index->SpanOf(*site.tenant);
        }
    }
    resolved->index = std::move(index);
    return resolved;
}

std::shared_ptr<const SiteUniverse> SiteUniverseCache::For(
    const std::shared_ptr<const cmdb::SlaSet>& slas, const std::string& group
) {
    {
        const std::lock_guard lock(mutex_);
        for (const auto& universe : unresolved_) {
            if (universe->slas == slas && universe->group == group) {
                return universe;
            }
        }
    }
    auto built = BuildSiteUniverse(slas, group);
    const std::lock_guard lock(mutex_);
    ++builds_;
    if (unresolved_.size() == kKept) {
        unresolved_.erase(unresolved_.begin());
    }
    unresolved_.push_back(built);
    return built;
}

std::shared_ptr<const SiteUniverse> SiteUniverseCache::Resolve(
    const std::shared_ptr<const SiteUniverse>& universe,
    const cmdb::Catalogue& catalogue,
    const std::shared_ptr<const FlavorIndex>& index
) {
    {
        const std::lock_guard lock(mutex_);
        for (const auto& entry : resolved_) {
            if (entry.from == universe && entry.resolved->index == index) {
                return entry.resolved;
            }
        }
    }
    auto resolved = ResolveSiteUniverse(*universe, catalogue, index);
    const std::lock_guard lock(mutex_);
    ++builds_;
    if (resolved_.size() == kKept) {
        resolved_.erase(resolved_.begin());
    }
    resolved_.push_back({universe, resolved});
    return resolved;
}

std::size_t SiteUniverseCache::builds() const {
    const std::lock_guard lock(mutex_);
    return builds_;
}

}  // namespace orch::placement
