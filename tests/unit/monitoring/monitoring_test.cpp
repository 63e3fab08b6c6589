// Monitoring feeds: the Zabbix-wrapper and Prometheus wire formats, derived signals, failures.
#include <monitoring/prometheus_feed.hpp>
#include <monitoring/zabbix_feed.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/test_env.hpp>

namespace orch::monitoring {
namespace {

std::string Fixture(const std::string& path) {
    return test::ReadFile(test::SharedDir() + "/fixtures/monitoring/" + path);
}

TEST_CASE("Zabbix: probes give availability and response time, Mesos masters give capacity", "[monitoring]") {
    auto cnaf = ParseZabbixGroup(ParseJson(Fixture("zabbix-wrapper/INFN-CNAF.json")).value(), "INFN-CNAF");
    REQUIRE(cnaf);
    const auto* mesos = cnaf->FindService("INFN-CNAF_5e5a327e-24ed-5b10-b68a-a34f85e1b95b");
    REQUIRE(mesos != nullptr);
    CHECK(mesos->capacity.free_gpus == 2);
    CHECK(mesos->capacity.free_cpus == 136);
    CHECK(mesos->capacity.free_mem_mb == 524288);
    CHECK(mesos->up == true);
    const auto* marathon = cnaf->FindService("INFN-CNAF_bd78f67d-59fa-5307-b052-fee2b5446af9");
    REQUIRE(marathon != nullptr);
    CHECK(marathon->up == true);
    CHECK(marathon->response_ms == 150);
    CHECK(marathon->metrics.size() == 12);

    auto padova = ParseZabbixGroup(ParseJson(Fixture("zabbix-wrapper/INFN-PADOVA.json")).value(), "INFN-PADOVA");
    REQUIRE(padova);
    CHECK(padova->services.at(0).up == false);
    CHECK_FALSE(padova->services.at(0).response_ms.has_value());

    auto cesnet = ParseZabbixGroup(ParseJson(Fixture("zabbix-wrapper/CESNET-MCC.json")).value(), "CESNET-MCC");
    REQUIRE_FALSE(cesnet);
    CHECK(cesnet.error().message == "No metrics available for provider CESNET-MCC");
    CHECK_FALSE(ParseZabbixGroup(Json::array(), "X"));
    CHECK_FALSE(ParseZabbixGroup(Json{{"result", nullptr}}, "X"));
}

// The feed reads time only through its Clock: a ManualClock moves its cache and its deadline.
TEST_CASE("Zabbix feed: an answer is reused for the TTL, then read again (injected clock)", "[monitoring]") {
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Mount(
        "/monitoring/adapters/zabbix/zones/indigo/types/infrastructure/groups",
        test::SharedDir() + "/fixtures/monitoring/zabbix-wrapper"
    );
    test::FixtureClient http(routes);
    ManualClock clock;
    ZabbixOptions options{"http://mon.test"};
    options.ttl = std::chrono::seconds(60);
    ZabbixFeed feed(http, options, clock);
    REQUIRE(feed.Collect({"RECAS-BARI"})->FindProvider("RECAS-BARI") != nullptr);
    const auto calls = routes->Requests().size();
    clock.Advance(std::chrono::seconds(59));
    REQUIRE(feed.Collect({"RECAS-BARI"})->FindProvider("RECAS-BARI") != nullptr);
    CHECK(routes->Requests().size() == calls);
    clock.Advance(std::chrono::seconds(2));
    REQUIRE(feed.Collect({"RECAS-BARI"})->FindProvider("RECAS-BARI") != nullptr);
    CHECK(routes->Requests().size() == calls + 1);
}

TEST_CASE("Zabbix feed: providers left when the deadline passes are skipped (injected clock)", "[monitoring]") {
    const std::string groups = "/monitoring/adapters/zabbix/zones/indigo/types/infrastructure/groups/";
    auto routes = std::make_shared<test::FixtureRoutes>();
    ManualClock clock;
    // The first provider's answer takes 16 s of the clock's time.
    routes->Route("GET", groups + "SLOW", [&clock](const test::FixtureRequest&) {
        clock.Advance(std::chrono::seconds(16));
        return test::FixtureResponse{404, "application/json", "{}"};
    });
    routes->Route("GET", groups + "LATE", [](const test::FixtureRequest&) {
        return test::FixtureResponse{404, "application/json", "{}"};
    });
    test::FixtureClient http(routes);
    ZabbixOptions options{"http://mon.test"};
    options.deadline = std::chrono::seconds(15);
    ZabbixFeed feed(http, options, clock);
    const auto snapshot = feed.Collect({"SLOW", "LATE"});
    REQUIRE(snapshot->notes.size() == 2);
    CHECK(snapshot->notes[1] == "monitoring: no data for LATE (the monitoring deadline passed)");
    CHECK(routes->Requests().size() == 1);
}

TEST_CASE("Zabbix feed: one call per provider, missing ones become notes, answers are cached", "[monitoring]") {
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Mount(
        "/monitoring/adapters/zabbix/zones/indigo/types/infrastructure/groups",
        test::SharedDir() + "/fixtures/monitoring/zabbix-wrapper"
    );
    test::FixtureClient http(routes);
    const ManualClock clock;
    ZabbixFeed feed(http, ZabbixOptions{"http://mon.test"}, clock);
    auto snapshot = feed.Collect({"RECAS-BARI", "PSNC", "CESNET-MCC"});
    CHECK(snapshot->FindProvider("RECAS-BARI") != nullptr);
    CHECK(snapshot->FindProvider("PSNC") == nullptr);
    REQUIRE(snapshot->notes.size() == 2);
    CHECK(snapshot->notes[0] == "monitoring: No metrics available for provider PSNC");
    const auto calls = routes->Requests().size();
    feed.Collect({"RECAS-BARI"});
    CHECK(routes->Requests().size() == calls);

    ZabbixFeed unreachable(http, ZabbixOptions{"http://unreachable"}, clock);
    auto empty = unreachable.Collect({"RECAS-BARI"});
    CHECK(empty->providers.empty());
    CHECK_THAT(empty->notes.at(0), Catch::Contains("connection refused"));
}

TEST_CASE("Prometheus answers: vectors, empty results and error envelopes", "[monitoring]") {
    auto vector = ParseQueryResponse(200, Fixture("prometheus/dcgm-gpu-inventory.vector.json"));
    REQUIRE(vector);
    REQUIRE(vector->size() == 4);
    CHECK(vector->at(0).Label("modelName") == "Tesla T4");
    CHECK(vector->at(0).value == 8);
    CHECK(ParseQueryResponse(200, Fixture("prometheus/empty-result.vector.json"))->empty());
    auto error = ParseQueryResponse(400, Fixture("prometheus/error-bad-data.json"));
    REQUIRE_FALSE(error);
    CHECK_THAT(error.error().message, Catch::Contains("HTTP 400, bad_data"));
    CHECK_THAT(error.error().message, Catch::Contains("parse error"));
    CHECK_FALSE(ParseQueryResponse(502, "<html>bad gateway</html>"));
    CHECK_FALSE(ParseQueryResponse(200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})"));
    auto nan = ParseQueryResponse(
        200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"NaN"]}]}})"
    );
    REQUIRE(nan);
    CHECK(nan->empty());
}

// Serves each default query from its fixture file, as a Prometheus would answer it.
std::shared_ptr<test::FixtureRoutes> PrometheusFixture() {
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Route("GET", "/api/v1/query", [](const test::FixtureRequest& request) {
        const std::string query = http::UrlDecode(request.query.substr(request.query.find('=') + 1), true);
        const std::pair<const char*, const char*> files[] = {
            {"probe_success", "site-availability.vector.json"},
            {"kube_node_status_allocatable", "k8s-free-gpus.vector.json"},
            {"mesos_master_gpus", "mesos-free-gpus.vector.json"},
            {"DCGM_FI_DEV_GPU_UTIL{pod=\"\"}", "dcgm-idle-gpus.vector.json"},
            {"DCGM_FI_DEV_GPU_UTIL)", "dcgm-gpu-inventory.vector.json"},
        };
        for (const auto& [needle, file] : files) {
            if (query.find(needle) != std::string::npos) {
                return test::FixtureResponse{200, "application/json", Fixture(std::string("prometheus/") + file)};
            }
        }
        return test::FixtureResponse{200, "application/json", Fixture("prometheus/empty-result.vector.json")};
    });
    return routes;
}

TEST_CASE("Prometheus feed: one query per signal for every site", "[monitoring]") {
    auto routes = PrometheusFixture();
    test::FixtureClient http(routes);
    PrometheusOptions options;
    options.url = "http://prom.test:9090";
    const ManualClock clock;
    PrometheusFeed feed(http, options, clock);
    auto snapshot = feed.Collect({});
    CHECK(snapshot->notes.empty());
    const auto* padova = snapshot->FindProvider("INFN-PADOVA");
    REQUIRE(padova != nullptr);
    CHECK(padova->FindService("INFN-PADOVA_f164876a-4d52-57c7-9a86-84c8d4a8a896")->up == false);
    CHECK(padova->FindService("INFN-PADOVA_f164876a-4d52-57c7-9a86-84c8d4a8a896")->Metric("create_result") == 0.0);
    const auto* cesnet = snapshot->FindProvider("CESNET-MCC");
    REQUIRE(cesnet != nullptr);
    CHECK(cesnet->capacity.free_gpus == 3);  // k8s and DCGM agree on 3
    CHECK(cesnet->capacity.gpus_by_model.at("NVIDIA A40") == 8);
    CHECK(snapshot->FindProvider("INFN-CNAF")->capacity.free_gpus == 2);
    CHECK(snapshot->FindProvider("UPV-GRyCAP")->capacity.free_gpus == 0);
    CHECK(snapshot->FindProvider("RECAS-BARI")->capacity.gpus_by_model.at("Tesla V100-PCIE-32GB") == 4);
    const auto calls = routes->Requests().size();
    feed.Collect({});
    CHECK(routes->Requests().size() == calls);  // within the TTL
}

TEST_CASE("Prometheus feed: a failing query is a note, an unreachable server stops after one try", "[monitoring]") {
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Route("GET", "/api/v1/query", [](const test::FixtureRequest&) {
        return test::FixtureResponse{400, "application/json", Fixture("prometheus/error-bad-data.json")};
    });
    test::FixtureClient http(routes);
    PrometheusOptions options;
    options.url = "http://prom.test";
    const ManualClock clock;
    auto snapshot = PrometheusFeed(http, options, clock).Collect({});
    CHECK(snapshot->providers.empty());
    CHECK(snapshot->notes.size() == 8);
    CHECK_THAT(snapshot->notes[0], Catch::Contains("Prometheus query for availability failed"));

    options.url = "http://unreachable:9090";
    auto down = PrometheusFeed(http, options, clock).Collect({});
    CHECK(down->notes.size() == 1);
}

}  // namespace
}  // namespace orch::monitoring
