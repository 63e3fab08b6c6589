// The DCGM utilisation query of idle GPU reclamation: which series belong to a deployment, what
// is refused rather than escaped, and how answers are read.
#include <common/json.hpp>
#include <monitoring/gpu_utilisation.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>

namespace orch::monitoring {
namespace {

using std::chrono::seconds;

std::string Vector(const std::vector<std::pair<std::string, double>>& series) {
    Json result = Json::array();
    for (const auto& [ns, value] : series) {
        result.push_back({{"metric", {{"namespace", ns}}}, {"value", {1.7e9, std::to_string(value)}}});
    }
    return Json{{"status", "success"}, {"data", {{"resultType", "vector"}, {"result", result}}}}.dump();
}

TEST_CASE("GPU utilisation: the query names the namespace and the deployment label", "[monitoring][idle]") {
    const GpuUtilisationOptions options;
    const auto both = GpuUtilisationQuery({"orch-3f2a", "3f2a0000-0000-4000-8000-000000000001"}, seconds(60), options);
    REQUIRE(both);
    CHECK(
        *both ==
        "max(max_over_time(DCGM_FI_DEV_GPU_UTIL{namespace=\"orch-3f2a\"}[60s]) or "
        "max_over_time(DCGM_FI_DEV_GPU_UTIL{orchestrator_deployment=\"3f2a0000-0000-4000-8000-000000000001\"}[60s]))"
    );
    const auto by_id = GpuUtilisationQuery({"", "3f2a"}, seconds(0), options);
    REQUIRE(by_id);
    CHECK(*by_id == "max(max_over_time(DCGM_FI_DEV_GPU_UTIL{orchestrator_deployment=\"3f2a\"}[1s]))");
}

TEST_CASE("GPU utilisation: label values that would need escaping are refused", "[monitoring][idle][security]") {
    const GpuUtilisationOptions options;
    CHECK_FALSE(GpuUtilisationQuery({"ns\"} or vector(100) #", ""}, seconds(60), options));
    CHECK_FALSE(GpuUtilisationQuery({"UPPER", "a\\b"}, seconds(60), options));
    CHECK_FALSE(GpuUtilisationQuery({std::string(64, 'a'), ""}, seconds(60), options));
    CHECK_FALSE(GpuUtilisationQuery({"", ""}, seconds(60), options));
    GpuUtilisationOptions bad_metric;
    bad_metric.metric = "up} or vector(1";
    CHECK_FALSE(GpuUtilisationQuery({"ns", ""}, seconds(60), bad_metric));
    // A half-safe workload keeps only its safe selector.
    const auto half = GpuUtilisationQuery({"ns\"x", "abc"}, seconds(60), options);
    REQUIRE(half);
    CHECK(half->find("ns\"x") == std::string::npos);
}

TEST_CASE("GPU utilisation: the highest series wins, no series is nothing known", "[monitoring][idle]") {
    auto routes = std::make_shared<test::FixtureRoutes>();
    std::string answer = Vector({{"orch-a", 3}, {"orch-a", 41.5}});
    routes->Route("GET", "/api/v1/query", [&answer](const test::FixtureRequest&) {
        return test::FixtureResponse{200, "application/json", answer};
    });
    test::FixtureClient http(routes);
    PrometheusClient client(http, "http://prom.test:9090", std::chrono::milliseconds(1000));
    GpuUtilisationReader reader(client, {});
    auto busy = reader.MaxUtilisation({"orch-a", ""}, seconds(30));
    REQUIRE(busy);
    REQUIRE(busy->has_value());
    CHECK(**busy == Approx(41.5));
    CHECK_THAT(routes->Requests().back().query, Catch::Contains("DCGM_FI_DEV_GPU_UTIL"));

    answer = Vector({});
    auto none = reader.MaxUtilisation({"orch-a", ""}, seconds(30));
    REQUIRE(none);
    CHECK_FALSE(none->has_value());

    // An unsafe workload makes no request at all.
    const auto before = routes->Requests().size();
    auto refused = reader.MaxUtilisation({"a\"b", ""}, seconds(30));
    REQUIRE(refused);
    CHECK_FALSE(refused->has_value());
    CHECK(routes->Requests().size() == before);
}

}  // namespace
}  // namespace orch::monitoring
