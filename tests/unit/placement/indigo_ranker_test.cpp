// The ranker fixtures: the original CPR's answers, reproduced record by record.
#include <orchestrator/placement/indigo_ranker.hpp>

#include <catch2/catch.hpp>
#include <test_support/test_env.hpp>

namespace orch::placement {
namespace {

Json Load(const std::string& name) {
    return ParseJson(test::ReadFile(test::SharedDir() + "/fixtures/ranker/" + name)).value();
}

void CheckScenario(const std::string& scenario) {
    INFO(scenario);
    auto input = ParseCprRequest(Load(scenario + ".request.json"));
    REQUIRE(input);
    auto records = RankIndigo(*input);
    REQUIRE(records);
    const Json expected = Load(scenario + ".expected-response.json");
    REQUIRE(records->size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("record " << i);
        const auto& want = expected[i];
        const auto& got = (*records)[i];
        CHECK(got.provider == want.at("provider").get<std::string>());
        CHECK(got.service_id == want.at("service_id").get<std::string>());
        if (want.at("sla_weight").is_null()) {
            CHECK_FALSE(got.sla_weight.has_value());
        } else {
            REQUIRE(got.sla_weight.has_value());
            CHECK(*got.sla_weight == Approx(want.at("sla_weight").get<double>()));
        }
        CHECK(got.total == Approx(want.at("total_score").get<double>()).margin(1e-3));
        CHECK(got.rank == want.at("rank").get<int>());
        CHECK(got.ranked == want.at("ranked").get<bool>());
    }
    // The JSON answer has the ranker's wire shape.
    const Json answer = CprResponseToJson(*records);
    CHECK(answer.size() == expected.size());
    CHECK(answer[0].contains("total_score"));
}

TEST_CASE("indigo ranker reproduces every ranker fixture exactly", "[placement][indigo]") {
    for (const char* scenario :
         {"A-gpu-vm-deep-hdc",
          "B-gpu-marathon-deep-hdc",
          "B2-cpu-marathon-deep-hdc",
          "C-helm-kubernetes-deep-hdc",
          "D-gpu-vm-ml-lab"}) {
        CheckScenario(scenario);
    }
}

CprInput TwoEqualServices() {
    CprInput input;
    cmdb::Sla sla{"sla-1", "g", "P", "", "", {}};
    for (const char* id : {"svc-b", "svc-a"}) {
        sla.services.push_back(
            {"computing", id, {{"public_ip", "", {1.0, 2.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt}}}}
        );
        input.priorities.push_back({"compute", "sla-1", id, 1.0});
    }
    input.slas.push_back(sla);
    return input;
}

TEST_CASE("indigo ties go to the smaller service id", "[placement][indigo]") {
    auto records = RankIndigo(TwoEqualServices());
    REQUIRE(records);
    REQUIRE(records->size() == 2);
    CHECK(records->at(1).service_id == "svc-a");
    CHECK(records->at(1).rank == 1);
    CHECK(records->at(0).rank == 2);
    CHECK(records->at(0).total == Approx(3.0));
}

TEST_CASE("indigo ranker fails like CPR on bad input", "[placement][indigo]") {
    auto input = TwoEqualServices();
    SECTION("missing weight") {
        input.priorities[0].weight.reset();
        CHECK_FALSE(RankIndigo(input));
    }
    SECTION("unknown SLA") {
        input.priorities[0].sla_id = "nope";
        auto result = RankIndigo(input);
        REQUIRE_FALSE(result);
        CHECK_THAT(result.error().message, Catch::Contains("SLA nope not found"));
    }
    SECTION("duplicate metric") {
        input.monitoring.push_back(
            {"P", {{"svc-a", "org.openstack.nova", "", {{"create_result", 1}, {"create_result", 1}}}}}
        );
        CHECK_FALSE(RankIndigo(input));
    }
    SECTION("malformed request JSON") {
        CHECK_FALSE(ParseCprRequest(Json::array()));
        CHECK_FALSE(ParseCprRequest(Json{{"monitoring", Json::array({1})}}));
    }
}

TEST_CASE(
    "unknown target types keep the previous factor, missing probe metrics keep the partial score", "[placement][indigo]"
) {
    CprInput input;
    cmdb::Sla sla{"s", "g", "P", "", "", {}};
    sla.services.push_back(
        {"computing",
         "svc",
         {
             {"computing_time", "h", {100.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt}},
             {"num_cpus", "", {100.0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt}},
         }}
    );
    input.slas.push_back(sla);
    input.priorities.push_back({"compute", "s", "svc", 0.5});
    input.monitoring.push_back(
        {"P",
         {{"svc", "org.openstack.nova", "", {{"create_result", 1}, {"create_responseTime", 200}, {"run_result", 1}}}}}
    );
    auto records = RankIndigo(input);
    REQUIRE(records);
    CHECK(records->at(0).sla_score.value() == Approx(2 * 100 * 0.0166));
    CHECK(records->at(0).metrics_score.value() == Approx(0.5));  // run_responseTime missing: stop there
}

}  // namespace
}  // namespace orch::placement
