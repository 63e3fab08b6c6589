// Shared by the API contract tests: the real binary on a fresh database, auth disabled, an empty
// catalogue (so creates end CREATE_FAILED with the placement's reasons), quick workflow polls.
#pragma once

#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <map>
#include <memory>
#include <string>

namespace orch::test {

/// The corpus' Marathon template the original's own tests use.
std::string MarathonTemplate();

class ApiHarness {
   public:
    /// Callbacks may reach 127.0.0.1 (the contract tests' callback targets): the egress policy
    /// refuses loopback addresses unless allow-listed.
    static constexpr const char* kLoopbackCallbacks = "egress:\n  allowed: [127.0.0.1]\n";

    /// `name` prefixes the folder holding the generated configuration; `extra_yaml` is appended
    /// to it (top-level sections other than auth, tosca, placement and workflow); `extra_env`
    /// overrides keys of those too (ORCHESTRATOR_<SECTION>__<KEY>).
    explicit ApiHarness(
        const std::string& name,
        const std::string& extra_yaml = kLoopbackCallbacks,
        const std::map<std::string, std::string>& extra_env = {}
    );

    http::ClientResponse Call(
        const std::string& method,
        const std::string& path,
        const std::string& body = "",
        http::Headers headers = {{"Content-Type", "application/json"}}
    );

    /// Polls GET /deployments/{id} until `status`; fails the test after 20 s.
    Json WaitFor(const std::string& id, const std::string& status);

    std::string base() const { return process_.BaseUrl(); }
    int port() const { return process_.port(); }
    /// What the orchestrator logged so far.
    std::string Log() { return process_.process().Log(); }

   private:
    TestDatabase db_;
    OrchestratorProcess process_;
    std::unique_ptr<http::Client> client_;
};

}  // namespace orch::test
