// CMDB v1 and SLAM over real HTTP: the fixtures served in their wire formats by a local server.
#include <cmdb/cmdb_v1_source.hpp>
#include <cmdb/slam_source.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/test_env.hpp>

namespace orch::cmdb {
namespace {

struct Served {
    std::shared_ptr<test::FixtureRoutes> routes = std::make_shared<test::FixtureRoutes>();
    std::unique_ptr<test::FixtureHttpServer> server;
    std::unique_ptr<http::Client> http = std::move(http::MakeClient({})).value();

    Served() {
        routes->Mount("/cmdb/v1", test::SharedDir() + "/fixtures/cmdb/v1");
        routes->Mount("/rest/slam", test::SharedDir() + "/fixtures/slam/v1");
        server = std::make_unique<test::FixtureHttpServer>(routes);
    }
};

TEST_CASE("CMDB v1 over HTTP: every provider of the fixtures loads", "[cmdb][http]") {
    Served served;
    const SystemClock clock;
    CmdbV1Source source(*served.http, CmdbV1Options{served.server->url() + "/cmdb/v1"}, clock);
    const std::vector<std::string> providers = {
        "RECAS-BARI",
        "IFCA-LCG2",
        "INFN-PADOVA",
        "CESGA",
        "INFN-CNAF",
        "UPV-GRyCAP",
        "CESNET-MCC",
        "PSNC",
        "AWS-EU-WEST-1"};
    auto view = source.Load(providers);
    REQUIRE(view);
    CHECK(view->notes.empty());
    CHECK(view->catalogue->providers().size() == 9);
    CHECK(view->catalogue->service_count() == 13);
    const auto* ifca = view->catalogue->FindService("IFCA-LCG2_23e4d765-4a0d-52ec-ab60-91cfd67b2874");
    REQUIRE(ifca != nullptr);
    const auto* tenant = ifca->TenantFor("deep-hdc");
    REQUIRE(tenant != nullptr);
    CHECK(tenant->proxy_host == "bastion.ifca.example.org");
    CHECK(tenant->flavors.back().infiniband);
    CHECK(
        view->catalogue->FindService("CESNET-MCC_29f7f5d4-a720-5e19-9b39-8fdc029b727d")->IntProperty("num_gpus") == 8
    );
}

TEST_CASE("CMDB over HTTP: when the server goes away the last good copy is used and said", "[cmdb][http]") {
    Served served;
    CmdbV1Options options{served.server->url() + "/cmdb/v1"};
    options.ttl = std::chrono::milliseconds(0);
    options.timeout = std::chrono::seconds(2);
    const SystemClock clock;
    CmdbV1Source source(*served.http, options, clock);
    REQUIRE(source.Load({"RECAS-BARI"}));
    served.server->Stop();
    auto stale = source.Load({"RECAS-BARI"});
    REQUIRE(stale);
    CHECK(stale->catalogue->FindProvider("RECAS-BARI") != nullptr);
    REQUIRE(stale->notes.size() == 1);
    CHECK_THAT(stale->notes[0], Catch::Contains("CMDB unreachable"));
    auto none = source.Load({"CESGA"});
    REQUIRE_FALSE(none);
    CHECK_THAT(none.error().message, Catch::Contains("Error retrieving info from CMDB"));
}

TEST_CASE("SLAM over HTTP: the user's token is sent, unknown groups are 404", "[cmdb][http]") {
    Served served;
    const SystemClock clock;
    SlamSource slam(*served.http, SlamOptions{served.server->url() + "/rest/slam"}, clock);
    auto view = slam.ForGroup("ml-lab", "abc.def.ghi");
    REQUIRE(view);
    CHECK(view->slas->slas.size() == 2);
    const auto requests = served.routes->Requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].Header("authorization") == "Bearer abc.def.ghi");
    auto missing = slam.ForGroup("other-group", "abc.def.ghi");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message == "Error fetching SLA for customer other-group from SLAM.");
}

}  // namespace
}  // namespace orch::cmdb
