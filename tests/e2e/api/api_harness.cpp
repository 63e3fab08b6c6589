#include "api_harness.hpp"

#include "test_support/orchestrator_config.hpp"
#include "test_support/poll_deployment.hpp"

#include <catch2/catch.hpp>

#include <thread>

namespace orch::test {
std::string MarathonTemplate() {
    return ReadFile(SharedDir() + "/tosca-corpus/indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml");
}

ApiHarness::ApiHarness(
    const std::string& name, const std::string& extra_yaml, const std::map<std::string, std::string>& extra_env
)
    : process_(db_.dsn(), extra_env, WriteNoSiteConfig(name + "-", extra_yaml)),
      client_(std::move(*http::MakeClient({}))) {
    REQUIRE(WaitForStatus(process_.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
}

http::ClientResponse ApiHarness::Call(
    const std::string& method, const std::string& path, const std::string& body, http::Headers headers
) {
    http::ClientRequest req;
    req.method = method;
    req.url = path.rfind("http", 0) == 0 ? path : process_.BaseUrl() + path;
    req.body = body;
    req.headers = std::move(headers);
    req.timeout = std::chrono::seconds(30);
    auto res = client_->Send(req);
    REQUIRE(res);
    return *res;
}

Json ApiHarness::WaitFor(const std::string& id, const std::string& status) {
    const auto polled = PollDeployment(
        [&] { return std::optional<Json>(Json::parse(Call("GET", "/deployments/" + id).body)); },
        HasStatus(status),
        std::chrono::seconds(20),
        std::chrono::milliseconds(50)
    );
    if (!polled.reached) {
        FAIL("deployment " << id << " never reached " << status << "; last: " << polled.last.dump());
    }
    return polled.last;
}

}  // namespace orch::test
