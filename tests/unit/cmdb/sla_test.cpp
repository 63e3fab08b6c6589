// SLAs: the SLAM wire format, the local file, the SLAM client (token, 404, fallback).
#include <cmdb/file_sla_source.hpp>
#include <cmdb/slam_source.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/test_env.hpp>

namespace orch::cmdb {
namespace {

TEST_CASE("SLAM preferences parse into priorities, SLAs and targets", "[cmdb][sla]") {
    const Json body =
        ParseJson(test::ReadFile(test::SharedDir() + "/fixtures/slam/v1/preferences/deep-hdc.json")).value();
    auto slas = ParseSlamPreferences(body, "deep-hdc");
    REQUIRE(slas);
    REQUIRE(slas->preferences.size() == 2);
    CHECK(slas->preferences[0].priority.size() == 10);
    CHECK(slas->preferences[0].priority[2].weight == 0.75);
    const auto* service =
        slas->FindSlaService("9e6ed77511e7d4db7d600db3", "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b");
    REQUIRE(service != nullptr);
    CHECK(service->targets[1].type == "computing_time");
    CHECK(service->targets[1].restrictions.instance_limit == 720);
    CHECK_FALSE(service->targets[0].restrictions.instance_limit.has_value());
    CHECK_FALSE(ParseSlamPreferences(
        Json{{"sla", {{{"id", "x"}, {"services", {{{"targets", {{{"restrictions", {{"total_limit", "lots"}}}}}}}}}}}}},
        "g"
    ));
}

TEST_CASE("a group's SLA body may carry lease terms, absent ones stay unset", "[cmdb][sla][leases]") {
    auto with =
        ParseSlamPreferences(Json{{"lease", {{"default", "72h"}, {"maximum", "720h"}, {"action", "stop"}}}}, "g");
    REQUIRE(with);
    CHECK(with->lease.default_duration == "72h");
    CHECK(with->lease.maximum_duration == "720h");
    CHECK(with->lease.action == "stop");
    auto partial = ParseSlamPreferences(Json{{"lease", {{"maximum", "24h"}}}}, "g");
    REQUIRE(partial);
    CHECK_FALSE(partial->lease.default_duration.has_value());
    CHECK(partial->lease.maximum_duration == "24h");
    auto none = ParseSlamPreferences(Json::object(), "g");
    REQUIRE(none);
    CHECK_FALSE(none->lease.action.has_value());
    CHECK_FALSE(ParseSlamPreferences(Json{{"lease", "72h"}}, "g"));
    CHECK_FALSE(ParseSlamPreferences(Json{{"lease", {{"default", 72}}}}, "g"));
}

TEST_CASE("a num_gpus target may name a GPU class with aliases, vendor or a memory floor", "[cmdb][sla][gpu_class]") {
    const auto body = [](Json target) {
        target["type"] = "num_gpus";
        target["restrictions"] = {{"total_limit", 8}};
        const Json service{{"service_id", "svc"}, {"targets", Json::array({target})}};
        const Json sla{{"id", "s"}, {"services", Json::array({service})}};
        return Json{{"sla", Json::array({sla})}};
    };
    auto slas = ParseSlamPreferences(
        body({{"gpu_class", "V100"}, {"gpu_aliases", {"Tesla V100-PCIE-32GB"}}, {"gpu_vendor", "NVIDIA"}}), "g"
    );
    REQUIRE(slas);
    const auto& target = slas->slas[0].services[0].targets[0];
    CHECK(target.gpu_class == "V100");
    CHECK(target.gpu_aliases == std::vector<std::string>{"Tesla V100-PCIE-32GB"});
    CHECK(target.gpu_vendor == "NVIDIA");
    auto memory = ParseSlamPreferences(body({{"gpu_class", ">=40GB"}, {"gpu_min_memory_mb", 40960}}), "g");
    REQUIRE(memory);
    CHECK(memory->slas[0].services[0].targets[0].gpu_min_memory_mb == 40960u);
    // Hostile or malformed: bounded lists, typed members, a class name for what defines one.
    CHECK_FALSE(ParseSlamPreferences(body({{"gpu_class", "V100"}, {"gpu_aliases", "V100"}}), "g"));
    CHECK_FALSE(ParseSlamPreferences(body({{"gpu_class", "V100"}, {"gpu_aliases", Json::array({1})}}), "g"));
    CHECK_FALSE(
        ParseSlamPreferences(body({{"gpu_class", "V100"}, {"gpu_aliases", std::vector<std::string>(65, "x")}}), "g")
    );
    CHECK_FALSE(ParseSlamPreferences(body({{"gpu_class", std::string(257, 'x')}}), "g"));
    CHECK_FALSE(ParseSlamPreferences(body({{"gpu_class", "x"}, {"gpu_min_memory_mb", -1}}), "g"));
    CHECK_FALSE(ParseSlamPreferences(body({{"gpu_aliases", {"V100"}}}), "g"));
}

TEST_CASE("local SLA file: one body per group, unknown groups are not found", "[cmdb][sla]") {
    auto source = FileSlaSource::Open(test::SharedDir() + "/fixtures/slam/local/slam.json");
    REQUIRE(source);
    auto view = (*source)->ForGroup("ml-lab", "");
    REQUIRE(view);
    CHECK(view->slas->slas.size() == 2);
    auto missing = (*source)->ForGroup("other-group", "");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ErrorCode::kNotFound);
    CHECK(missing.error().message == "Error fetching SLA for customer other-group from SLAM.");
    CHECK_FALSE(FileSlaSource::Open("/nonexistent/slam.yaml"));
}

TEST_CASE("SLAM client: bearer token, 404, cache and fallback", "[cmdb][sla]") {
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Mount("/slam", test::SharedDir() + "/fixtures/slam/v1");
    test::FixtureClient http(routes);
    ManualClock clock{std::chrono::system_clock::time_point(std::chrono::hours(1000))};
    SlamSource slam(http, SlamOptions{"http://slam.test/slam/"}, clock);
    auto view = slam.ForGroup("deep-hdc", "user-token");
    REQUIRE(view);
    CHECK(view->slas->slas.size() == 10);
    REQUIRE(routes->Requests().size() == 1);
    CHECK(routes->Requests()[0].path == "/slam/preferences/deep-hdc");
    CHECK(routes->Requests()[0].Header("Authorization") == "Bearer user-token");

    auto missing = slam.ForGroup("other-group", "user-token");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ErrorCode::kNotFound);

    routes->Fail("/slam", 502);
    clock.Advance(std::chrono::minutes(6));
    auto stale = slam.ForGroup("deep-hdc", "user-token");
    REQUIRE(stale);
    CHECK_THAT(
        stale->notes.at(0), Catch::Contains("SLAM unreachable (SLAM answered HTTP 502); using the SLAs read 6 min ago")
    );
    auto down = slam.ForGroup("ml-lab", "user-token");
    REQUIRE_FALSE(down);
    CHECK(down.error().code == ErrorCode::kUnavailable);
}

TEST_CASE("SLAM client: a cache bound of zero reads SLAM every time", "[cmdb][sla]") {
    // The client's own copy of the bounded cache erased begin() of its empty map here
    // (undefined behaviour: the release build spun there, the test never ended).
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Mount("/slam", test::SharedDir() + "/fixtures/slam/v1");
    test::FixtureClient http(routes);
    ManualClock clock{std::chrono::system_clock::time_point(std::chrono::hours(1000))};
    SlamOptions options{"http://slam.test/slam"};
    options.max_cached_groups = 0;
    SlamSource slam(http, options, clock);
    for (int i = 0; i < 3; ++i) {
        auto view = slam.ForGroup(i % 2 == 0 ? "deep-hdc" : "ml-lab", "user-token");
        REQUIRE(view);
        CHECK(view->notes.empty());
    }
    CHECK(routes->Requests().size() == 3);
}

}  // namespace
}  // namespace orch::cmdb
