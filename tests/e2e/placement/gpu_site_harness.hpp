// Shared by the placement e2e tests: a site-sim Marathon site, a fresh database and the real
// binary on a configuration written for that site, with the API calls and waits they make.
#pragma once

#include "test_support/process.hpp"
#include "test_support/site_sim_process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <functional>
#include <memory>
#include <string>

namespace orch::test {

class GpuSiteHarness {
   public:
    /// `sim_config`: the site-sim's YAML; `write_config`: writes the orchestrator's configuration
    /// for the site's Marathon URL and returns its path.
    GpuSiteHarness(const std::string& sim_config, const std::function<std::string(const std::string&)>& write_config);

    http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "");

    /// Polls until the deployment is in `status` with a statusReason starting with `reason`
    /// (FAILs with the orchestrator's log on another final status or after 60 s).
    Json WaitFor(const std::string& id, const std::string& status, const std::string& reason = "");

   private:
    sim::test::SiteSimProcess sim_;
    TestDatabase db_;
    OrchestratorProcess process_;
    std::unique_ptr<http::Client> client_;
};

}  // namespace orch::test
