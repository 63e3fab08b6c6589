#pragma once

#include "cmdb/fedreg_source.hpp"
#include "common/config.hpp"
#include "common/http_client.hpp"
#include "orchestrator/placement/default_placer.hpp"

#include <memory>
#include <set>
#include <string>

namespace orch::placement {

/// The placement section of the orchestrator's configuration (`placement.*`), every key
/// documented in docs/placement.md. Errors name the key.
Result<PlacementOptions> ParsePlacementOptions(const ConfigTree& config);

/// The concrete sources chosen by configuration, and the placer over them. Owned by main; the
/// placer refers to the sources, so the whole bundle lives and dies together.
struct PlacementServices {
    std::unique_ptr<cmdb::CatalogueSource> catalogue;
    std::unique_ptr<cmdb::SlaSource> slas;
    /// The Federation Registry, which is both (`catalogue.type: fedreg`); the two above are then null.
    std::unique_ptr<cmdb::FedRegSource> registry;
    std::unique_ptr<monitoring::Feed> feed;
    std::unique_ptr<DefaultPlacer> placer;
};

/// Builds the sources from `placement.catalogue`, `placement.sla`, `placement.monitoring` and the
/// placer from the rest. Local files are read now, so a broken file fails startup with its error.
/// `http`, `usage`, `history` and `clock` must outlive the result.
Result<PlacementServices> MakePlacementServices(
    const ConfigTree& config, http::Client& http, UsageSource& usage, SiteHistory& history, const Clock& clock
);

/// Every key of the section, for ConfigTree::CheckKnownKeys (quotas.groups.* accepts any group).
std::set<std::string> PlacementConfigKeys();

}  // namespace orch::placement
