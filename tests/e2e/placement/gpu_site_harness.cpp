#include "gpu_site_harness.hpp"

#include "test_support/poll_deployment.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <optional>

namespace orch::test {

GpuSiteHarness::GpuSiteHarness(
    const std::string& sim_config, const std::function<std::string(const std::string&)>& write_config
)
    : sim_(sim_config),
      process_(db_.dsn(), {}, write_config(sim_.Url("marathon"))),
      client_(std::move(*http::MakeClient({}))) {
    REQUIRE(WaitForStatus(process_.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
}

http::ClientResponse GpuSiteHarness::Call(const std::string& method, const std::string& path, const std::string& body) {
    http::ClientRequest req;
    req.method = method;
    req.url = process_.BaseUrl() + path;
    req.body = body;
    req.headers = {{"Content-Type", "application/json"}};
    req.timeout = std::chrono::seconds(30);
    auto res = client_->Send(req);
    REQUIRE(res);
    return *res;
}

Json GpuSiteHarness::WaitFor(const std::string& id, const std::string& status, const std::string& reason) {
    const auto wanted = [&](const Json& d) {
        return d.is_object() && d.value("status", "") == status &&
               d.value("statusReason", std::string()).rfind(reason, 0) == 0;
    };
    // Stops early on any other final status: waiting longer would only delay the failure.
    const auto polled = PollDeployment(
        [&] { return std::optional<Json>(Json::parse(Call("GET", "/deployments/" + id).body)); },
        [&](const Json& d) { return wanted(d) || d.value("status", "").find("IN_PROGRESS") == std::string::npos; },
        std::chrono::seconds(60)
    );
    if (!wanted(polled.last)) {
        FAIL(
            "deployment " << id << " did not reach " << status << ": " << polled.last.dump() << "\n"
                          << process_.process().Log()
        );
    }
    return polled.last;
}

}  // namespace orch::test
