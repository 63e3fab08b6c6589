#pragma once

#include "cmdb/site_model.hpp"
#include "cmdb/sla.hpp"
#include "declared_gpus.hpp"
#include "monitoring/signals.hpp"
#include "orchestrator/placement/flavor_index.hpp"
#include "orchestrator/placement/placement_options.hpp"
#include "orchestrator/placement/shared_text.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::placement {

/// One candidate service of a group, with everything about it that does not depend on the
/// request: its SLA entry, and (once resolved against a catalogue) its service, provider, the
/// group's project and that project's place in the flavor index. Views point into the SLA set
/// and the catalogue, which the universe holds.
struct UniverseSite {
    std::string_view service_id;
    std::string_view provider_id;  ///< the SLA's provider, else (resolved) the service's
    std::string_view sla_id;
    std::optional<double> weight;
    bool sla_missing = false;  ///< SLAM lists it under an SLA that does not exist
    /// Position of service_id among the universe's ids in byte order: ranking breaks ties by
    /// service id, and comparing these is cheaper than comparing the ids.
    std::uint32_t id_order = 0;
    /// This service's SLA targets as quotas: SiteUniverse::sla_quotas, -1 when it has none.
    std::int32_t sla_quota = -1;
    /// Its provider's position in SiteUniverse::provider_ids (when it has a provider id).
    std::uint32_t provider_slot = 0;
    const cmdb::SlaService* sla_service = nullptr;
    const cmdb::Service* service = nullptr;  ///< null: not in the catalogue (or not resolved yet)
    const cmdb::Provider* provider = nullptr;
    std::string_view provider_name;        ///< the provider's name, else its id (for the verdict)
    std::string_view service_type;         ///< the service's type (for the verdict)
    const cmdb::Tenant* tenant = nullptr;  ///< the group's project on this service, if any
    FlavorIndex::TenantSpan flavors;       ///< that project's flavors in the index
    // Copied from the service so the filters that reject most sites read this array only.
    cmdb::ServiceKind kind = cmdb::ServiceKind::kOpenStack;
    bool iam_enabled = true;
    /// The service's own kind is kCredentialIaas (an EC2 site reached through IM, whose `kind`
    /// says VM site): read by the policy filter for every site, so not behind `service`.
    bool credential_iaas = false;
    std::uint32_t idp_set = 0;    ///< the service's trusted issuers: SiteUniverse::idp_sets
    std::uint32_t image_set = 0;  ///< the project's images: SiteUniverse::image_sets (with a tenant)
    /// The project's image list itself, so taking an image by position reads no tenant object.
    const cmdb::Image* images = nullptr;
    DeclaredGpus declared;  ///< containers and jobs (not OpenStack)
};

/// A site's names as its verdict shows them, interned in the process's TextPool: every verdict of
/// every placement copies them with no reference to count.
struct VerdictNames {
    SharedText provider_id, provider_name, service_id, service_type;
};

/// The monitoring data of one site in one snapshot (null where it has none).
struct SiteSignals {
    const monitoring::ProviderSignals* site = nullptr;
    const monitoring::ServiceSignals* own = nullptr;
    const monitoring::ServiceSignals* parent = nullptr;  ///< the Mesos master's, for a framework
};

/// The compute services a group's SLAs name, each once, in SLAM order (docs/placement.md, "How a
/// placement runs", steps 1–3), resolved against one catalogue version. A placement used to find
/// every service, provider, SLA and project by id for each of thousands of sites on every
/// request; these do not change between requests, so they are found once per (SLA set, group,
/// catalogue version) and shared, immutable, by concurrent placements.
struct SiteUniverse {
    std::shared_ptr<const cmdb::SlaSet> slas;
    std::string group;
    std::vector<UniverseSite> sites;
    /// Per site, in the same order (set once resolved); apart from `sites`, which the filters
    /// walk, because only the verdicts read them.
    std::vector<VerdictNames> names;
    std::vector<std::string> provider_ids;  ///< every provider named, once (what to load)
    std::vector<GroupQuota> sla_quotas;     ///< the non-empty ones (see UniverseSite::sla_quota)
    /// Distinct lists of trusted issuers (trailing '/' removed): thousands of sites usually trust
    /// the same few identity providers, so a placement checks each list once.
    std::vector<std::vector<std::string_view>> idp_sets;
    /// Distinct image lists (by every field image matching reads, in order), each given by the
    /// first project that offers it: sites usually offer the same few images, so a placement
    /// matches a node's wish against each list once and takes the same position on every site.
    std::vector<const cmdb::Tenant*> image_sets;
    /// Set once resolved: the catalogue version (its index holds the providers alive).
    std::shared_ptr<const FlavorIndex> index;
};

/// Builds the universe of an SLA set (not resolved: no catalogue pointers).
std::shared_ptr<const SiteUniverse> BuildSiteUniverse(std::shared_ptr<const cmdb::SlaSet> slas, std::string group);

/// The same universe resolved against the catalogue the index was built from.
std::shared_ptr<const SiteUniverse> ResolveSiteUniverse(
    const SiteUniverse& universe, const cmdb::Catalogue& catalogue, std::shared_ptr<const FlavorIndex> index
);

/// A site's monitoring data found by id (what SiteUniverseCache::Signals caches).
SiteSignals FindSiteSignals(
    const monitoring::Snapshot& snapshot,
    std::string_view provider_id,
    std::string_view service_id,
    std::string_view parent_id
);

/// The last few universes, by (SLA set object, group) and by catalogue version. Sources hand out
/// the same immutable SLA set and providers until they re-read them, so object identity is the
/// version; the cache holds what it keys on, so an address cannot be reused while cached.
/// Thread-safe; a miss builds outside the lock.
class SiteUniverseCache {
   public:
    std::shared_ptr<const SiteUniverse> For(const std::shared_ptr<const cmdb::SlaSet>& slas, const std::string& group);
    std::shared_ptr<const SiteUniverse> Resolve(
        const std::shared_ptr<const SiteUniverse>& universe,
        const cmdb::Catalogue& catalogue,
        const std::shared_ptr<const FlavorIndex>& index
    );
    /// Every site's monitoring data in `snapshot`, in universe order, reused while the feed
    /// hands out the same snapshot object (Prometheus does until its TTL ends).
    std::shared_ptr<const std::vector<SiteSignals>> Signals(
        const std::shared_ptr<const SiteUniverse>& universe, const std::shared_ptr<const monitoring::Snapshot>& snapshot
    );
    /// Universes built (unresolved + resolved) so far: observability and tests.
    std::size_t builds() const;

   private:
    static constexpr std::size_t kKept = 8;  ///< per kind: a few groups placing at the same time
    struct Resolved {
        std::shared_ptr<const SiteUniverse> from;
        std::shared_ptr<const SiteUniverse> resolved;
    };
    mutable std::mutex mutex_;
    std::vector<std::shared_ptr<const SiteUniverse>> unresolved_;  ///< newest last
    std::vector<Resolved> resolved_;                               ///< newest last
    // The snapshot is held weakly: a feed that builds a new snapshot per call (the Zabbix
    // wrapper) lets it die after the placement, and the entry then simply never matches again
    // (an expired pointer locks to null) instead of keeping eight old snapshots alive.
    struct Signalled {
        std::shared_ptr<const SiteUniverse> universe;
        std::weak_ptr<const monitoring::Snapshot> snapshot;
        std::shared_ptr<const std::vector<SiteSignals>> signals;
    };
    std::vector<Signalled> signals_;  ///< newest last
    std::size_t builds_ = 0;
};

}  // namespace orch::placement
