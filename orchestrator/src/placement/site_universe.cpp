#include "site_universe.hpp"

#include "gpu_model.hpp"
#include "im_sites.hpp"
#include "orchestrator/placement/text_pool.hpp"
#include "quota.hpp"
#include "seen_ids.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

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

// The number `seen` gives `key`: the next one (out.size(), with `value` appended to `out`) when
// the key is new. Every interned list of the universe (providers, issuer lists, image lists).
template <typename Seen, typename Key, typename Out, typename Value>
std::uint32_t Intern(Seen& seen, const Key& key, std::vector<Out>& out, Value&& value) {
    const auto [it, added] = seen.emplace(key, static_cast<std::uint32_t>(out.size()));
    if (added) {
        out.emplace_back(std::forward<Value>(value));
    }
    return it->second;
}

// The index of the service's list of trusted issuers in `sets`, added when new.
std::uint32_t InternIdps(
    const cmdb::Service& service,
    std::vector<std::vector<std::string_view>>& sets,
    std::map<std::vector<std::string_view>, std::uint32_t>& seen
) {
    std::vector<std::string_view> issuers;
    for (const auto& idp : service.supported_idps) {
        issuers.push_back(TrimSlash(idp.issuer));
    }
    return Intern(seen, issuers, sets, std::move(issuers));
}

// What image matching (ChooseImage) reads of a project's images, as one text: two projects with
// the same text get the same answer for any wish, at the same positions.
std::string ImageListKey(const cmdb::Tenant& tenant) {
    std::string key;
    for (const auto& image : tenant.images) {
        for (const std::string* field :
             {&image.name,
              &image.os_type,
              &image.distribution,
              &image.version,
              &image.gpu_driver_version,
              &image.cuda_version}) {
            key += *field;
            key += '\x1f';
        }
        key += image.gpu_driver ? '1' : '0';
        key += image.cuda_support ? '1' : '0';
        key += '\x1e';
    }
    return key;
}

std::uint32_t InternImages(
    const cmdb::Tenant& tenant,
    std::vector<const cmdb::Tenant*>& sets,
    std::unordered_map<std::string, std::uint32_t>& seen
) {
    return Intern(seen, ImageListKey(tenant), sets, &tenant);
}

std::vector<VerdictNames> InternNames(const std::vector<UniverseSite>& sites) {
    auto& pool = TextPool::Process();
    std::vector<VerdictNames> names;
    names.reserve(sites.size());
    for (const auto& site : sites) {
        names.push_back(
            {pool.Intern(site.provider_id),
             pool.Intern(site.provider_name),
             pool.Intern(site.service_id),
             pool.Intern(site.service_type)}
        );
    }
    return names;
}

}  // namespace

SiteSignals FindSiteSignals(
    const monitoring::Snapshot& snapshot,
    std::string_view provider_id,
    std::string_view service_id,
    std::string_view parent_id
) {
    SiteSignals found;
    found.site = snapshot.FindProvider(provider_id);
    if (found.site != nullptr) {
        found.own = found.site->FindService(service_id);
        found.parent = parent_id.empty() ? nullptr : found.site->FindService(parent_id);
    }
    return found;
}

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
    std::vector<std::uint32_t> by_id(universe->sites.size());
    for (std::uint32_t i = 0; i < by_id.size(); ++i) {
        by_id[i] = i;
    }
    std::sort(by_id.begin(), by_id.end(), [&](std::uint32_t a, std::uint32_t b) {
        return universe->sites[a].service_id < universe->sites[b].service_id;
    });
    for (std::uint32_t order = 0; order < by_id.size(); ++order) {
        universe->sites[by_id[order]].id_order = order;
    }
    std::unordered_map<std::string_view, std::uint32_t> providers;
    for (auto& site : universe->sites) {
        if (site.sla_service != nullptr) {
            if (auto quota = SlaQuota(*site.sla_service); !quota.group.empty() || !quota.user.empty()) {
                site.sla_quota = static_cast<std::int32_t>(universe->sla_quotas.size());
                universe->sla_quotas.push_back(quota);
            }
        }
        if (site.provider_id.empty()) {
            continue;
        }
        site.provider_slot = Intern(providers, site.provider_id, universe->provider_ids, site.provider_id);
    }
    universe->slas = std::move(slas);
    universe->group = std::move(group);
    return universe;
}

std::shared_ptr<const SiteUniverse> ResolveSiteUniverse(
    const SiteUniverse& universe, const cmdb::Catalogue& catalogue, std::shared_ptr<const FlavorIndex> index
) {
    auto resolved = std::make_shared<SiteUniverse>(universe);
    std::map<std::vector<std::string_view>, std::uint32_t> idp_sets;
    std::unordered_map<std::string, std::uint32_t> image_sets;
    std::unordered_map<std::string_view, std::uint32_t> slots;
    for (const auto& site : resolved->sites) {
        if (!site.provider_id.empty()) {
            slots.emplace(site.provider_id, site.provider_slot);
        }
    }
    for (auto& site : resolved->sites) {
        site.provider_name = site.provider_id;
        if (site.sla_missing) {
            continue;
        }
        site.service = catalogue.FindService(site.service_id);
        if (site.service == nullptr) {
            continue;
        }
        if (site.provider_id.empty()) {
            // A provider known only from the catalogue (its SLA named none) gets a slot too.
            site.provider_id = site.service->provider_id;
            site.provider_slot = Intern(slots, site.provider_id, resolved->provider_ids, site.provider_id);
        }
        site.provider = catalogue.FindProvider(site.provider_id);
        site.provider_name = site.provider != nullptr ? std::string_view(site.provider->name) : site.provider_id;
        site.service_type = site.service->service_type;
        site.tenant = site.service->TenantFor(resolved->group);
        if (site.tenant != nullptr) {
            site.flavors = index->SpanOf(*site.tenant);
            site.image_set = InternImages(*site.tenant, resolved->image_sets, image_sets);
            site.images = site.tenant->images.data();
        }
        // A site only IM reaches (OpenNebula, EC2, ...) is a VM site like an OpenStack one.
        site.kind = ImOnlyCloudType(*site.service).empty() ? site.service->kind : cmdb::ServiceKind::kOpenStack;
        site.iam_enabled = site.service->iam_enabled;
        site.credential_iaas = site.service->kind == cmdb::ServiceKind::kCredentialIaas;
        site.idp_set = InternIdps(*site.service, resolved->idp_sets, idp_sets);
        if (site.kind != cmdb::ServiceKind::kOpenStack) {
            const auto* parent =
                site.service->parent_id.empty() ? nullptr : catalogue.FindService(site.service->parent_id);
            site.declared = DeclaredGpusOf(*site.service, parent);
        }
    }
    resolved->names = InternNames(resolved->sites);
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

std::shared_ptr<const std::vector<SiteSignals>> SiteUniverseCache::Signals(
    const std::shared_ptr<const SiteUniverse>& universe, const std::shared_ptr<const monitoring::Snapshot>& snapshot
) {
    {
        const std::lock_guard lock(mutex_);
        for (const auto& entry : signals_) {
            if (entry.universe == universe && entry.snapshot.lock() == snapshot) {
                return entry.signals;
            }
        }
    }
    auto signals = std::make_shared<std::vector<SiteSignals>>();
    signals->reserve(universe->sites.size());
    for (const auto& site : universe->sites) {
        signals->push_back(
            site.service == nullptr
                ? SiteSignals{}
                : FindSiteSignals(*snapshot, site.provider_id, site.service_id, site.service->parent_id)
        );
    }
    const std::lock_guard lock(mutex_);
    std::erase_if(signals_, [](const Signalled& entry) { return entry.snapshot.expired(); });
    if (signals_.size() == kKept) {
        signals_.erase(signals_.begin());
    }
    signals_.push_back({universe, snapshot, signals});
    return signals;
}

std::size_t SiteUniverseCache::builds() const {
    const std::lock_guard lock(mutex_);
    return builds_;
}

}  // namespace orch::placement
