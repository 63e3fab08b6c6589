// The placer wired as in production: CMDB v1, SLAM and the Zabbix wrapper over real HTTP
// (the fixtures in their wire formats), through the configuration factory.
#include "../../unit/placement/spec_builders.hpp"

#include <orchestrator/placement/placer_factory.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>

namespace orch::placement {
namespace {

struct Federation {
    std::shared_ptr<test::FixtureRoutes> routes = std::make_shared<test::FixtureRoutes>();
    test::FixtureHttpServer server{routes};
    std::unique_ptr<http::Client> http = std::move(http::MakeClient({})).value();
    InMemoryUsageSource usage;
    InMemorySiteHistory history;
    const SystemClock clock;  // integration: real cache ages
    PlacementServices services;

    explicit Federation(const std::string& mode, const std::string& extra = "") {
        const std::string fixtures = test::FixturesDir();
        routes->Mount("/cmdb/v1", fixtures + "/cmdb/v1");
        routes->Mount("/rest/slam", fixtures + "/slam/v1");
        routes->Mount(
            "/monitoring/adapters/zabbix/zones/indigo/types/infrastructure/groups",
            fixtures + "/monitoring/zabbix-wrapper"
        );
        const std::string url = server.url();
        auto config = ConfigTree::FromYaml(
            "placement:\n  mode: " + mode + "\n  catalogue: {type: cmdb, url: \"" + url +
                "/cmdb/v1\"}\n  sla: {type: slam, url: \"" + url +
                "/rest/slam\"}\n  monitoring: {type: indigo, url: \"" + url + "\"}\n" + extra,
            "test.yaml"
        );
        REQUIRE(config);
        REQUIRE(config->CheckKnownKeys(PlacementConfigKeys()));
        auto built = MakePlacementServices(*config, *http, usage, history, clock);
        REQUIRE(built);
        services = std::move(built).value();
    }

    PlacementDecision Place(const tosca::DeploymentSpec& spec, const std::string& group = "deep-hdc") {
        PlacementRequest request{&spec, {"https://iam.paas.example.org/", "alice", group, "the-users-token"}, ""};
        auto decision = services.placer->Place(request);
        REQUIRE(decision);
        return std::move(decision).value();
    }
};

std::vector<std::string> Order(const PlacementDecision& decision) {
    std::vector<std::string> out;
    for (const auto& candidate : decision.ranked) {
        out.push_back(candidate.target.site_id);
    }
    return out;
}

TEST_CASE("over HTTP, indigo mode gives the original order for scenario A", "[placement][http]") {
    Federation federation("indigo");
    const auto decision = federation.Place(test::GpuVmSpec());
    CHECK(Order(decision) == std::vector<std::string>{"INFN-PADOVA", "RECAS-BARI", "IFCA-LCG2"});
    CHECK(decision.ranked[1].score == Approx(358.2457).margin(1e-3));
    for (const auto& request : federation.routes->Requests()) {
        const bool slam = request.path.rfind("/rest/slam", 0) == 0;
        CHECK(request.Header("Authorization") == (slam ? "Bearer the-users-token" : ""));
    }
}

TEST_CASE("over HTTP, gpu-aware mode skips the down site and explains it", "[placement][http]") {
    Federation federation("gpu-aware");
    const auto decision = federation.Place(test::GpuVmSpec());
    CHECK(Order(decision) == std::vector<std::string>{"RECAS-BARI", "IFCA-LCG2"});
    const Json json = decision.ToJson();
    CHECK_THAT(json.dump(), Catch::Contains("is down: its last monitoring probe failed (HTTP 503)"));
}

TEST_CASE("over HTTP, a GPU quota refuses, and freeing a deployment admits the next one", "[placement][http][quota]") {
    Federation federation("gpu-aware", "  quotas: {groups: {deep-hdc: {group: {gpus: 2}}}}\n");
    const Requester bob{"https://iam.paas.example.org/", "bob", "deep-hdc", ""};
    federation.usage.Put("running-1", bob, "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b", {8, 30720, 1, 1});
    federation.usage.Put("running-2", bob, "IFCA-LCG2_23e4d765-4a0d-52ec-ab60-91cfd67b2874", {12, 98304, 1, 1});
    const auto refused = federation.Place(test::GpuVmSpec());
    REQUIRE(refused.ranked.empty());
    CHECK_THAT(
        refused.NoCandidateMessage(),
        Catch::Contains("quota exceeded: group 'deep-hdc' may use 2 GPUs; 2 are in use by active deployments and this "
                        "deployment needs 1 more")
    );
    federation.usage.Remove("running-2");
    CHECK(Order(federation.Place(test::GpuVmSpec())) == std::vector<std::string>{"RECAS-BARI", "IFCA-LCG2"});
}

TEST_CASE("over HTTP, a group SLAM does not know is explained", "[placement][http]") {
    Federation federation("gpu-aware");
    const auto decision = federation.Place(test::GpuVmSpec(), "other-group");
    CHECK(decision.ranked.empty());
    CHECK_THAT(
        decision.NoCandidateMessage(), Catch::Contains("Error fetching SLA for customer other-group from SLAM.")
    );
}

}  // namespace
}  // namespace orch::placement
