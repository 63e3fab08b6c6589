#pragma once

#include "cmdb/catalogue_source.hpp"
#include "cmdb/sla_source.hpp"
#include "common/clock.hpp"
#include "monitoring/feed.hpp"
#include "orchestrator/placement/flavor_index.hpp"
#include "orchestrator/placement/placement_observer.hpp"
#include "orchestrator/placement/placement_options.hpp"
#include "orchestrator/placement/placer.hpp"
#include "orchestrator/placement/usage.hpp"

#include <map>
#include <memory>
#include <string>

namespace orch::placement {

class SiteUniverseCache;  // the services of a group's SLAs, resolved once per catalogue version

/// The placer: SLAs of the group → their services in the catalogue → filters (every reason
/// recorded) → monitoring → quotas → ranking (gpu-aware or indigo) → candidates and verdicts.
///
/// Sources are held by reference and must outlive the placer. Place blocks on the network
/// (CMDB, SLAM, monitoring; each bounded by its timeouts) and is safe to call concurrently.
/// Errors: kInvalidArgument (no spec), kUnavailable (no catalogue or SLAM answer at all, nothing
/// cached). A group without SLAs, an unknown SLA in a policy, or failing monitoring give a
/// decision without candidates, explained in notes and verdicts.
class DefaultPlacer : public Placer {
   public:
    DefaultPlacer(
        cmdb::CatalogueSource& catalogue,
        cmdb::SlaSource& slas,
        monitoring::Feed& feed,
        UsageSource& usage,
        SiteHistory& history,
        PlacementOptions options,
        const Clock& clock
    );

    ~DefaultPlacer() override;
    DefaultPlacer(const DefaultPlacer&) = delete;
    DefaultPlacer& operator=(const DefaultPlacer&) = delete;
    Result<PlacementDecision> Place(const PlacementRequest& request) override;
    std::map<std::string, std::string> ConfigurationEndpoints() const override;

    /// Told what each placement rejected, by filter (metrics); must outlive the placer. Set it
    /// before the first Place (main does, when wiring). Null, the default: nobody is told.
    void SetObserver(PlacementObserver* observer) { observer_ = observer; }

    const PlacementOptions& options() const { return options_; }
    /// Flavor indexes built so far: one per catalogue version (see FlavorIndexCache).
    std::size_t flavor_index_builds() const { return flavor_indexes_.builds(); }
    /// Site universes built so far: per SLA set, then per catalogue version (SiteUniverseCache).
    std::size_t universe_builds() const;

   private:
    cmdb::CatalogueSource& catalogue_;
    cmdb::SlaSource& slas_;
    monitoring::Feed& feed_;
    UsageSource& usage_;
    SiteHistory& history_;
    PlacementOptions options_;
    const Clock& clock_;  ///< evaluated_at, and the circuit breakers' windows
    FlavorIndexCache flavor_indexes_;
    std::unique_ptr<SiteUniverseCache> universes_;
    PlacementObserver* observer_ = nullptr;
};

}  // namespace orch::placement
