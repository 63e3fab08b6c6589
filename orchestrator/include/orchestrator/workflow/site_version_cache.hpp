#pragma once

#include "common/clock.hpp"
#include "connectors/connector.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace orch::workflow {

/// The software version of each site service deployments were sent to, for diagnostics (it goes
/// into the `attempt_started` event). Asked of the connector (one bounded call) at most once per
/// `ttl` per site service, on the step's worker thread; a site that cannot say is remembered as
/// kUnknownSiteVersion for `ttl / 12`, so a broken site is not asked on every deployment. At most
/// `max_sites` entries: when full, the oldest goes.
class SiteVersionCache {
   public:
    explicit SiteVersionCache(
        const Clock& clock, std::chrono::milliseconds ttl = std::chrono::hours(1), std::size_t max_sites = 1024
    );

    std::string VersionOf(connectors::Connector& connector, const connectors::SiteTarget& target);

   private:
    struct Entry {
        std::string version;
        std::chrono::steady_clock::time_point until;
    };

    const Clock& clock_;
    std::chrono::milliseconds ttl_;
    std::size_t max_sites_;
    std::mutex mutex_;
    std::map<std::string, Entry> entries_;  // by site id and service id
};

}  // namespace orch::workflow
