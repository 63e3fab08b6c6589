// The placer wired by configuration on the Federation Registry (recorded fixtures of
// tests/integration/cmdb/fixtures/fedreg over real HTTP): regions, GPU flavors, per-user quotas
// and the usage the registry reports.
#include "../../unit/placement/spec_builders.hpp"

#include <orchestrator/placement/placer_factory.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/recorded_exchanges.hpp>

namespace orch::placement {
namespace {

constexpr const char* kRegionOne = "ad000000000000000000000000000001";
constexpr const char* kRegionTwo = "ad000000000000000000000000000002";
constexpr const char* kIfca = "ad000000000000000000000000000003";

struct Registry {
    std::shared_ptr<test::FixtureRoutes> routes = std::make_shared<test::FixtureRoutes>();
    test::FixtureHttpServer server{routes};
    std::unique_ptr<http::Client> http = std::move(http::MakeClient({})).value();
    InMemoryUsageSource usage;
    InMemorySiteHistory history;
    SystemClock clock;  // the fixtures' replies carry no time: the real clock is fine
    PlacementServices services;

    Registry() {
        test::ServeRecordedExchanges(*routes, test::SourceDir() + "/tests/integration/cmdb/fixtures/fedreg");
        auto config = ConfigTree::FromYaml(
            "placement:\n  catalogue: {type: fedreg, url: \"" + server.url() + "/api/v1\"}\n", "test.yaml"
        );
        REQUIRE(config);
        REQUIRE(config->CheckKnownKeys(PlacementConfigKeys()));
        auto built = MakePlacementServices(*config, *http, usage, history, clock);
        REQUIRE(built);
        services = std::move(built).value();
    }

    PlacementDecision Place(
        const tosca::DeploymentSpec& spec, const std::string& user = "alice", DeploymentLimits limits = {}
    ) {
        PlacementRequest request{
            &spec, {"https://iam.paas.example.org/", user, "deep-hdc", "the-users-token"}, "", std::move(limits)};
        auto decision = services.placer->Place(request);
        REQUIRE(decision);
        return std::move(decision).value();
    }
};

tosca::DeploymentSpec UbuntuVm(double cpus, std::uint64_t mem_mb, int gpus, int count = 1) {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kVirtualMachines;
    auto node = test::VmNode("vm", cpus, mem_mb, gpus);
    node.count = count;
    node.resources.os_distribution = "ubuntu";
    node.resources.os_version = "22.04";
    spec.nodes.push_back(node);
    return spec;
}

const SiteVerdict& VerdictOf(const PlacementDecision& decision, const std::string& service) {
    for (const auto& verdict : decision.verdicts) {
        if (verdict.service_id.view() == service) {
            return verdict;
        }
    }
    FAIL("no verdict for " << service);
    return decision.verdicts.front();
}

std::string Reasons(const SiteVerdict& verdict) {
    std::string out;
    for (const auto& text : verdict.reasons.Texts()) {
        out += text + "\n";
    }
    return out;
}

TEST_CASE("Federation Registry placement: two GPUs go to the region that has them", "[placement][fedreg]") {
    Registry registry;
    const auto decision = registry.Place(UbuntuVm(4, 8192, 2));
    REQUIRE_FALSE(decision.ranked.empty());
    const auto& chosen = decision.ranked.front();
    CHECK(chosen.target.service_id == kRegionTwo);
    CHECK(chosen.target.region == "RegionTwo");
    CHECK(chosen.target.endpoint == "https://keystone-r2.recas.example.org:5000/v3");
    CHECK(chosen.provider_name == "RECAS-BARI");
    CHECK(chosen.placements.at("vm").flavor_name == "g2.a100x2");
    CHECK(decision.ranked.size() == 1);
    CHECK_THAT(Reasons(VerdictOf(decision, kRegionOne)), Catch::Contains("no flavor has 2 GPUs"));
    CHECK_THAT(Reasons(VerdictOf(decision, kIfca)), Catch::Contains("no flavor has 2 GPUs"));
}

TEST_CASE("Federation Registry placement: one GPU fits best in RegionOne's T4", "[placement][fedreg]") {
    Registry registry;
    const auto decision = registry.Place(UbuntuVm(2, 4096, 1));
    REQUIRE(decision.ranked.size() == 2);
    CHECK(decision.ranked[0].target.service_id == kRegionOne);
    CHECK(decision.ranked[0].target.region == "RegionOne");
    CHECK(decision.ranked[0].placements.at("vm").flavor_name == "g1.t4x1");
    CHECK(decision.ranked[1].target.service_id == kRegionTwo);
}

TEST_CASE(
    "Federation Registry placement: per-user and site-reported quotas refuse, naming the quota",
    "[placement][fedreg][quota]"
) {
    Registry registry;
    // 5 VMs of 8 CPUs: above RegionOne's per-user 32 and RegionTwo's 64 − 60 the site reports in use.
    const auto decision = registry.Place(UbuntuVm(8, 4096, 0, 5));
    const std::string one = Reasons(VerdictOf(decision, kRegionOne));
    CHECK_THAT(
        one,
        Catch::Contains(
            "quota exceeded: you may use 32 CPUs on this service (SLA bc000000000000000000000000000001); 0 are "
            "in use by active deployments and this deployment needs 40 more"
        )
    );
    CHECK_THAT(
        Reasons(VerdictOf(decision, kRegionTwo)),
        Catch::Contains("quota exceeded: group 'deep-hdc' may use 64 CPUs on this service (SLA "
                        "bc000000000000000000000000000001); 60 are in use as the site reports and this deployment "
                        "needs 40 more")
    );
    // IFCA's cores are unlimited (-1): it takes the deployment.
    REQUIRE(decision.ranked.size() == 1);
    CHECK(decision.ranked[0].target.service_id == kIfca);
    CHECK(decision.ranked[0].placements.at("vm").flavor_name == "cm8.xlarge");
}

TEST_CASE(
    "Federation Registry placement: the request's target region and provider are enforced and explained",
    "[placement][fedreg][target]"
) {
    Registry registry;
    DeploymentLimits limits;
    limits.target_region = "RegionTwo";
    limits.max_providers_retry = 2;
    limits.provider_timeout_mins = 30;
    const auto decision = registry.Place(UbuntuVm(2, 4096, 1), "alice", limits);
    REQUIRE(decision.ranked.size() == 1);
    CHECK(decision.ranked[0].target.service_id == kRegionTwo);
    CHECK_THAT(
        Reasons(VerdictOf(decision, kRegionOne)),
        Catch::Contains("in region 'RegionOne', not the target region 'RegionTwo' the request names")
    );
    const std::string explanation = decision.ToJsonText();
    CHECK_THAT(explanation, Catch::Contains("the request targets any provider in region 'RegionTwo'"));
    CHECK_THAT(
        explanation,
        Catch::Contains(
            "limits of the request: providers tried at most 2, per-provider timeout 30 min, overall timeout none"
        )
    );

    DeploymentLimits ifca;
    ifca.target_provider = "IFCA-LCG2";  // by name; the id (its uid) works as well
    const auto by_name = registry.Place(UbuntuVm(2, 4096, 0), "alice", ifca);
    REQUIRE(by_name.ranked.size() == 1);
    CHECK(by_name.ranked[0].target.service_id == kIfca);
    CHECK_THAT(
        Reasons(VerdictOf(by_name, kRegionOne)),
        Catch::Contains("not the target provider 'IFCA-LCG2' the request names")
    );
    ifca.target_provider = "aa000000000000000000000000000002";
    CHECK(registry.Place(UbuntuVm(2, 4096, 0), "alice", ifca).ranked.size() == 1);
}

}  // namespace
}  // namespace orch::placement
