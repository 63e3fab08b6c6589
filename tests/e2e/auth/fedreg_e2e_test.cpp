// The Federation Registry as the catalogue and SLA source of the real binary (auth on, the real
// test OIDC provider, PostgreSQL): a fixture registry serves the recorded exchanges of the
// integration tests (tests/integration/cmdb/fixtures/fedreg), rewritten for this run — the
// test issuer instead of the recorded one, bob's group `physics` instead of `deep-hdc`, and every
// site URL on a closed loopback port (no traffic leaves 127.0.0.0/8). Two RECAS regions (a T4
// and a 2 × A100 flavor), IFCA with unlimited cores, per-user and site-reported quotas.
#include "../../integration/auth/oidc_provider.hpp"
#include "authed_orchestrator.hpp"

#include <common/json.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/recorded_exchanges.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

namespace {

using orch::Json;
using orch::test::AuthedOrchestrator;
using orch::test::OidcProvider;

constexpr const char* kRegionOne = "ad000000000000000000000000000001";
constexpr const char* kRegionTwo = "ad000000000000000000000000000002";
constexpr const char* kIfca = "ad000000000000000000000000000003";

// The recorded fixtures with this run's issuer and group, and sites on 127.0.0.1:9 (refused).
std::string RewrittenFixtures(const std::string& issuer) {
    const std::string from = orch::test::SourceDir() + "/tests/integration/cmdb/fixtures/fedreg";
    const std::string to = orch::test::BinaryDir() + "/e2e-fedreg-" + orch::RandomUuid().substr(0, 8);
    std::filesystem::create_directories(to);
    const std::regex site(R"(https://([a-z0-9-]+)\.([a-z0-9-]+)\.example\.org(:[0-9]+)?)");
    for (const auto& entry : std::filesystem::directory_iterator(from)) {
        std::string text = orch::test::ReadFile(entry.path().string());
        for (const auto& [old_text, new_text] :
             {std::pair<std::string, std::string>{"https://iam.paas.example.org/", issuer}, {"deep-hdc", "physics"}}) {
            for (auto at = text.find(old_text); at != std::string::npos;
                 at = text.find(old_text, at + new_text.size())) {
                text.replace(at, old_text.size(), new_text);
            }
        }
        std::ofstream(to + "/" + entry.path().filename().string())
            << std::regex_replace(text, site, "http://127.0.0.1:9/$1.$2");
    }
    return to;
}

// An INDIGO Compute of `count` instances, each with `cpus` CPUs, `mem` and `gpus` GPUs, Ubuntu 22.04.
std::string VmTemplate() {
    return "tosca_definitions_version: tosca_simple_yaml_1_0\n"
           "imports:\n"
           "  - indigo_custom_types: "
           "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml\n"
           "topology_template:\n"
           "  inputs:\n"
           "    cpus: {type: integer, default: 2}\n"
           "    mem: {type: scalar-unit.size, default: 4 GB}\n"
           "    gpus: {type: integer, default: 0}\n"
           "    count: {type: integer, default: 1}\n"
           "  node_templates:\n"
           "    vm:\n"
           "      type: tosca.nodes.indigo.Compute\n"
           "      capabilities:\n"
           "        scalable:\n"
           "          properties: {count: {get_input: count}}\n"
           "        host:\n"
           "          properties:\n"
           "            num_cpus: {get_input: cpus}\n"
           "            mem_size: {get_input: mem}\n"
           "            num_gpus: {get_input: gpus}\n"
           "        os:\n"
           "          properties: {distribution: ubuntu, version: \"22.04\"}\n";
}

Json Body(int cpus, const std::string& mem, int gpus, int count = 1) {
    return Json{
        {"template", VmTemplate()},
        {"parameters", {{"cpus", cpus}, {"mem", mem}, {"gpus", gpus}, {"count", count}}},
        {"userGroup", "physics"}};
}

struct Rig {
    OidcProvider& alpha = OidcProvider::Shared("alpha");
    std::shared_ptr<orch::test::FixtureRoutes> routes = std::make_shared<orch::test::FixtureRoutes>();
    orch::test::FixtureHttpServer registry{routes};
    std::unique_ptr<AuthedOrchestrator> api;
    std::string bob = alpha.UserToken("bob").access_token;  // groups users, physics

    Rig() {
        orch::test::ServeRecordedExchanges(*routes, RewrittenFixtures(alpha.issuer()));
        orch::test::AuthedSetup setup;
        setup.issuers = {{"alpha", alpha.issuer()}};
        setup.placement_yaml = "  catalogue: {type: fedreg, url: \"" + registry.url() + "/api/v1\"}\n";
        api = std::make_unique<AuthedOrchestrator>(setup);
    }

    Json DryRun(const Json& body) {
        const auto res = api->Call("POST", "/placement", bob, body.dump());
        INFO(res.body);
        REQUIRE(res.status == 200);
        return Json::parse(res.body);
    }
};

const Json& Site(const Json& explanation, const std::string& service) {
    for (const auto& site : explanation["sites"]) {
        if (site["service_id"] == service) {
            return site;
        }
    }
    FAIL("no site " << service << " in " << explanation.dump());
    return explanation;
}

std::string Reasons(const Json& site) {
    std::string out;
    for (const auto& reason : site["reasons"]) {
        out += reason.get<std::string>() + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("Federation Registry through the binary: the dry run picks region and flavor", "[e2e][auth][fedreg]") {
    Rig rig;
    SECTION("two GPUs go to RegionTwo's 2 x A100, the only region that has them") {
        const Json two = rig.DryRun(Body(4, "8 GB", 2));
        INFO(two.dump());
        REQUIRE(two["candidates"].size() == 1);
        CHECK(two["chosen"]["service_id"] == kRegionTwo);
        CHECK(two["candidates"][0]["target"]["region"] == "RegionTwo");
        CHECK(two["candidates"][0]["provider_name"] == "RECAS-BARI");
        CHECK(two["candidates"][0]["placements"]["vm"]["flavor_name"] == "g2.a100x2");
        CHECK_THAT(Reasons(Site(two, kRegionOne)), Catch::Contains("no flavor has 2 GPUs"));
        CHECK_THAT(Reasons(Site(two, kIfca)), Catch::Contains("no flavor has 2 GPUs"));
    }
    SECTION("five 8-CPU VMs: over the per-user quota of RegionOne and the reported usage of RegionTwo") {
        const Json big = rig.DryRun(Body(8, "4 GB", 0, 5));
        INFO(big.dump());
        CHECK_THAT(
            Reasons(Site(big, kRegionOne)),
            Catch::Contains("quota exceeded: you may use 32 CPUs on this service (SLA bc000000000000000000000000000001)"
            )
        );
        CHECK_THAT(Reasons(Site(big, kRegionTwo)), Catch::Contains("60 are in use as the site reports"));
        REQUIRE(big["candidates"].size() == 1);
        CHECK(big["chosen"]["service_id"] == kIfca);
        CHECK(big["candidates"][0]["placements"]["vm"]["flavor_name"] == "cm8.xlarge");
    }
    SECTION("RegionTwo offers only its own flavors: the public m1.medium is RegionOne's") {
        Json body = Body(2, "4 GB", 0);
        body["targetRegion"] = "RegionTwo";
        const Json small = rig.DryRun(body);
        INFO(small.dump());
        REQUIRE(small["candidates"].size() == 1);
        CHECK(small["candidates"][0]["placements"]["vm"]["flavor_name"] != "m1.medium");
    }
}

TEST_CASE(
    "Federation Registry through the binary: a create goes to the picked region, one over the per-user quota fails "
    "with the site's reason",
    "[e2e][auth][fedreg]"
) {
    Rig rig;
    const std::string gpus = rig.api->Create(rig.bob, VmTemplate(), Body(4, "8 GB", 2));
    // The sites are on a refused port: the attempt on RegionTwo starts (and retries there); where
    // it went is all this test needs.
    Json attempts = Json::object();
    for (int i = 0; i < 300 && attempts.value("attempts", Json::array()).empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        attempts = Json::parse(rig.api->Call("GET", "/deployments/" + gpus + "/attempts", rig.bob).body);
    }
    INFO(attempts.dump());
    REQUIRE(attempts["attempts"].size() == 1);
    CHECK(attempts["attempts"][0]["serviceId"] == kRegionTwo);
    CHECK(attempts["attempts"][0]["providerName"] == "RECAS-BARI");
    const auto placement = rig.api->Call("GET", "/deployments/" + gpus + "/placement", rig.bob);
    REQUIRE(placement.status == 200);
    const Json record = Json::parse(placement.body);
    INFO(record.dump());
    CHECK(record["chosen"]["service_id"] == kRegionTwo);
    REQUIRE(record["candidates"].size() == 1);
    CHECK(record["candidates"][0]["target"]["region"] == "RegionTwo");
    CHECK(record["candidates"][0]["placements"]["vm"]["flavor_name"] == "g2.a100x2");

    Json over = Body(8, "4 GB", 0, 5);
    over["targetRegion"] = "RegionOne";
    const std::string refused = rig.api->Create(rig.bob, VmTemplate(), over);
    orch::http::ClientResponse explained;
    for (int i = 0; i < 300; ++i) {
        explained = rig.api->Call("GET", "/deployments/" + refused + "/placement", rig.bob);
        if (explained.status == 200) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(explained.body);
    REQUIRE(explained.status == 200);
    CHECK(Json::parse(explained.body)["candidates"].empty());
    const Json failed = rig.api->WaitFor(refused, "CREATE_FAILED", rig.bob, 60);
    INFO(failed.dump());
    CHECK_THAT(
        failed["statusReason"].get<std::string>(),
        Catch::Contains("quota exceeded: you may use 32 CPUs on this service")
    );
    const Json none = Json::parse(rig.api->Call("GET", "/deployments/" + refused + "/attempts", rig.bob).body);
    CHECK(none["attempts"].empty());
}
