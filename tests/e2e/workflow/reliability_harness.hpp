#pragma once

#include "test_support/site_sim_process.hpp"

#include <common/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace orch::reliability {

/// One HTTP answer, or status 0 when the server could not be reached (it may have been killed).
struct Reply {
    int status = 0;
    Json body;
};

/// Sends one request; never throws on transport failure (status 0 instead).
Reply Send(
    const std::string& method,
    const std::string& url,
    const std::string& body = "",
    std::chrono::milliseconds timeout = std::chrono::seconds(20)
);

/// The body of POST /deployments for a small Marathon app (one CPU, no GPU).
std::string SmallCreateBody();

bool IsTerminal(const std::string& status);

/// Two simulated Marathon sites (two site-sim processes) with room for hundreds of small apps
/// and a fast clock, plus the orchestrator configuration that points at them.
class TwoSites {
   public:
    TwoSites();

    /// Writes catalogue, SLA and orchestrator.yaml to a fresh folder; returns the config path.
    std::string WriteConfig(const std::string& lease = "2s", int workers = 8) const;

    /// Marathon groups on each site, by site name (SIM-A, SIM-B), from the simulator's own
    /// /__sim/objects listing.
    std::map<std::string, std::vector<std::string>> GroupsBySite();

   private:
    sim::test::SiteSimProcess a_;
    sim::test::SiteSimProcess b_;
};

/// Every deployment the API lists (all pages), id -> status.
std::map<std::string, std::string> ListAll(const std::string& base_url);

/// Polls the list until every deployment is terminal or `timeout` passes; returns the last list.
std::map<std::string, std::string> WaitAllTerminal(const std::string& base_url, std::chrono::milliseconds timeout);

/// Checks that each deployment in `statuses` exists as a Marathon group on exactly one site when
/// it completed and on none otherwise, and that the sites hold no group of an unknown deployment.
void CheckDeployedExactlyOnce(TwoSites& sites, const std::map<std::string, std::string>& statuses);

}  // namespace orch::reliability
