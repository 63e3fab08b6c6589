// Shared by the API contract tests: the real binary on a fresh database, auth disabled, an empty
// catalogue (so creates end CREATE_FAILED with the placement's reasons), quick workflow polls.
#pragma once

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <memory>
#include <string>

#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

namespace orch::test {

/// The corpus' Marathon template the original's own tests use.
std::string MarathonTemplate();

class ApiHarness {
public:
    /// `name` prefixes the folder holding the generated configuration; `extra_yaml` is appended
    /// to it as written (top-level sections other than auth, tosca, placement and workflow).
    explicit ApiHarness(const std::string& name, const std::string& extra_yaml = "");

    http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "",
                              http::Headers headers = {{"Content-Type", "application/json"}});

    /// Polls GET /deployments/{id} until `status`; fails the test after 20 s.
    Json WaitFor(const std::string& id, const std::string& status);

    std::string base() const { return process_.BaseUrl(); }

private:
    TestDatabase db_;
    OrchestratorProcess process_;
    std::unique_ptr<http::Client> client_;
};

}  // namespace orch::test
