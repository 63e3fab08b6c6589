// Shared by the ops e2e tests: the real binary on a real PostgreSQL, auth disabled, a catalogue
// with no sites (so a create ends CREATE_FAILED by placement, which is all these tests need).
#pragma once

#include "test_support/orchestrator_config.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <string>

namespace orch::test::ops {

inline std::string MarathonTemplate() {
    return ReadFile(SharedDir() + "/tosca-corpus/indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml");
}

class OpsApi {
   public:
    explicit OpsApi(const std::string& extra_config = "", std::map<std::string, std::string> env = {})
        : process_(db_.dsn(), std::move(env), WriteNoSiteConfig("ops-", extra_config)),
          client_(std::move(*http::MakeClient({}))) {
        REQUIRE(WaitForStatus(process_.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    http::ClientResponse Call(
        const std::string& method,
        const std::string& path,
        const std::string& body = "",
        http::Headers headers = {{"Content-Type", "application/json"}}
    ) {
        http::ClientRequest req;
        req.method = method;
        req.url = process_.BaseUrl() + path;
        req.body = body;
        req.headers = std::move(headers);
        req.timeout = std::chrono::seconds(30);
        auto res = client_->Send(req);
        REQUIRE(res);
        return *res;
    }

    /// POSTs the corpus' Marathon template; returns the new deployment's response.
    http::ClientResponse Create() {
        return Call("POST", "/deployments", Json{{"template", MarathonTemplate()}}.dump());
    }

    int port() const { return process_.port(); }
    ChildProcess& process() { return process_.process(); }

   private:
    TestDatabase db_;
    OrchestratorProcess process_;
    std::unique_ptr<http::Client> client_;
};

}  // namespace orch::test::ops
