// The explanation record (ToJson/FromJson/NoCandidateMessage) and the configuration section.
#include "fixture_world.hpp"

#include <orchestrator/placement/placer_factory.hpp>

#include <catch2/catch.hpp>

#include <optional>

namespace orch::test {
namespace {

TEST_CASE("the decision JSON is stable, complete, and reads back", "[placement][json]") {
    FixtureWorld world;
    const auto decision = world.Place(GpuVmSpec());
    const Json json = decision.ToJson();
    CHECK(json.at("mode") == "gpu-aware");
    CHECK(json.at("chosen").at("service_id") == "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b");
    const Json& first = json.at("candidates").at(0);
    CHECK(first.at("rank") == 1);
    CHECK(
        first.at("endpoint") ==
        Json{
            {"cpEndpoint", "https://keystone.recas.example.org:5000/v3"},
            {"cpComputeServiceId", "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b"},
            {"deploymentType", "OPENSTACK"},
            {"region", "RegionOne"}}
    );
    CHECK(first.at("placements").at("vm").at("flavor_name") == "g1.t4x1");
    CHECK(first.at("target").at("options").at("protocol") == "openid");
    CHECK_FALSE(first.at("target").contains("credentials"));
    CHECK(json.at("sites").size() == decision.verdicts.size());
    CHECK(json.at("message").is_null());

    auto back = placement::PlacementDecision::FromJson(json);
    INFO((back ? std::string() : back.error().message));
    REQUIRE(back);
    CHECK(back->ToJson() == json);
    CHECK(back->ranked[0].placements.at("vm").image_id == "bd44de58-022c-5319-8754-471e65282dc8");
}

// ToJsonText is what the dry run serves: it must say exactly what ToJson says (same members and
// values; numbers may be spelled differently), for every kind of decision.
TEST_CASE("the decision as text parses to the decision JSON", "[placement][json]") {
    const auto same = [](const placement::PlacementDecision& decision) {
        const std::string text = decision.ToJsonText();
        CHECK(Json::parse(text) == decision.ToJson());
    };
    SECTION("gpu-aware, with candidates, notes and rejections") {
        FixtureWorld world;
        same(world.Place(GpuVmSpec()));
    }
    SECTION("no candidate: the message names every site") {
        FixtureWorld world;
        same(world.Place(GpuVmSpec(64)));
    }
    SECTION("indigo mode: score breakdowns held as JSON") {
        FixtureWorld world(IndigoOptions());
        same(world.Place(GpuVmSpec()));
    }
    SECTION("read back from storage: owned texts") {
        FixtureWorld world;
        const auto back = placement::PlacementDecision::FromJson(world.Place(GpuVmSpec()).ToJson()).value();
        same(back);
    }
}

TEST_CASE("notes kept as records read as words, after the catalogue and the request are gone", "[placement][json]") {
    std::optional<placement::PlacementDecision> kept;
    {
        FixtureWorld world;
        const auto spec = GpuVmSpec();
        kept = world.Place(spec);  // the world (catalogue source, placer) and the spec end here
    }
    const auto& chosen = kept->verdicts.front();
    REQUIRE(chosen.accepted);
    REQUIRE(chosen.reasons.size() >= 1);
    CHECK_THAT(chosen.reasons[0].Text(), Catch::StartsWith("node 'vm': flavor g1.t4x1, image '"));
    const placement::PlacementDecision copy = *kept;
    kept.reset();
    const Json json = copy.ToJson();
    CHECK(json.at("sites").at(0).at("reasons").at(0) == copy.verdicts.front().reasons[0].Text());
}

TEST_CASE("malformed stored decisions are errors", "[placement][json]") {
    CHECK_FALSE(placement::PlacementDecision::FromJson(Json::array()));
    CHECK_FALSE(placement::PlacementDecision::FromJson(Json{{"candidates", {{{"target", {{"kind", "NOPE"}}}}}}}));
    CHECK_FALSE(placement::PlacementDecision::FromJson(Json{{"candidates", Json::array({1})}}));
}

ConfigTree Config(const std::string& yaml) {
    return ConfigTree::FromYaml(yaml, "test.yaml").value();
}

TEST_CASE("the placement section parses with defaults and names bad keys", "[placement][config]") {
    auto options = placement::ParsePlacementOptions(Config(R"(
placement:
  mode: indigo
  max_candidates: 5
  weights: {fit: 1, latency: 0}
  circuit_breaker: {failures: 2, cooldown: 10m}
  quotas:
    default: {group: {gpus: 8}}
    groups:
      deep-hdc: {group: {gpus: 16, cpus: 256}, user: {gpus: 4}}
)"));
    REQUIRE(options);
    CHECK(options->mode == placement::PlacementMode::kIndigo);
    CHECK(options->max_candidates == 5);
    CHECK(options->weights.fit == 1);
    CHECK(options->weights.success == 0.3);
    CHECK(options->breaker.failures == 2);
    CHECK(options->breaker.cooldown == std::chrono::minutes(10));
    CHECK(options->quotas.defaults.group.gpus == 8);
    CHECK(options->quotas.groups.at("deep-hdc").user.gpus == 4);

    auto bad = placement::ParsePlacementOptions(Config("placement: {mode: fastest}"));
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("placement.mode"));
    auto negative = placement::ParsePlacementOptions(Config("placement: {quotas: {default: {user: {gpus: -1}}}}"));
    REQUIRE_FALSE(negative);
    CHECK_THAT(negative.error().message, Catch::Contains("placement.quotas.default.user.gpus"));

    auto tree = Config("placement: {catalogue: {typo: 1}}");
    auto known = tree.CheckKnownKeys(placement::PlacementConfigKeys());
    REQUIRE_FALSE(known);
    CHECK_THAT(known.error().message, Catch::Contains("placement.catalogue.typo"));
    CHECK(Config("placement: {quotas: {groups: {g: {group: {gpus: 1}}}}}")
              .CheckKnownKeys(placement::PlacementConfigKeys()));
}

TEST_CASE("placement.quotas limits GPU classes by name, or declares them as an SLA does", "[placement][config]") {
    auto options = placement::ParsePlacementOptions(Config(R"(
placement:
  quotas:
    default: {user: {gpu_classes: {V100: 2}}}
    groups:
      physics:
        group:
          gpus: 8
          gpu_classes:
            V100: 4
            A100: {limit: 2, aliases: ["NVIDIA A100-SXM4-40GB"], vendor: NVIDIA}
            large: {limit: 1, min_memory_mb: 40960}
)"));
    REQUIRE(options);
    const auto& classes = options->quotas.groups.at("physics").group.gpu_classes;
    REQUIRE(classes.size() == 3);
    CHECK(classes[0].gpu_class.name == "V100");
    CHECK(classes[0].limit == 4);
    CHECK(classes[0].gpu_class.aliases.empty());
    CHECK(classes[1].gpu_class.name == "A100");
    CHECK(classes[1].limit == 2);
    CHECK(classes[1].gpu_class.aliases == std::vector<std::string>{"NVIDIA A100-SXM4-40GB"});
    CHECK(classes[1].gpu_class.vendor == "NVIDIA");
    CHECK(classes[2].gpu_class.min_memory_mb == 40960U);
    REQUIRE(options->quotas.defaults.user.gpu_classes.size() == 1);
    CHECK(options->quotas.defaults.user.gpu_classes[0].limit == 2);

    auto negative =
        placement::ParsePlacementOptions(Config("placement: {quotas: {default: {group: {gpu_classes: {V100: -1}}}}}"));
    REQUIRE_FALSE(negative);
    CHECK_THAT(negative.error().message, Catch::Contains("placement.quotas.default.group.gpu_classes.V100"));
    auto no_limit = placement::ParsePlacementOptions(
        Config("placement: {quotas: {default: {group: {gpu_classes: {V100: {aliases: [x]}}}}}}")
    );
    REQUIRE_FALSE(no_limit);
    CHECK(Config("placement: {quotas: {default: {group: {gpu_classes: {V100: 1}}}}}")
              .CheckKnownKeys(placement::PlacementConfigKeys()));
}

TEST_CASE("services are built from configuration, GET /configuration shows the URLs", "[placement][config]") {
    auto routes = std::make_shared<FixtureRoutes>();
    FixtureClient http(routes);
    placement::InMemoryUsageSource usage;
    placement::InMemorySiteHistory history;
    const ManualClock clock;
    auto services = placement::MakePlacementServices(
        Config(R"(
placement:
  catalogue: {type: cmdb, url: "http://cmdb.test/cmdb/v1"}
  sla: {type: slam, url: "http://slam.test/rest/slam"}
  monitoring: {type: prometheus, url: "http://prometheus.test:9090"}
)"),
        http,
        usage,
        history,
        clock
    );
    REQUIRE(services);
    const auto endpoints = services->placer->ConfigurationEndpoints();
    CHECK(endpoints.at("cmdb_url") == "http://cmdb.test/cmdb/v1");
    CHECK(endpoints.at("slam_url") == "http://slam.test/rest/slam");
    CHECK(endpoints.at("monitoring_url") == "http://prometheus.test:9090");
    CHECK(endpoints.at("placement_mode") == "gpu-aware");

    const std::string files = "placement: {catalogue: {path: " + FixturesDir() +
                              "/cmdb/local/cmdb.json}, sla: {path: " + FixturesDir() + "/slam/local/slam.json}}";
    auto local = placement::MakePlacementServices(Config(files), http, usage, history, clock);
    REQUIRE(local);
    CHECK(local->placer->ConfigurationEndpoints().count("cmdb_url") == 0);

    auto missing =
        placement::MakePlacementServices(Config("placement: {catalogue: {type: file}}"), http, usage, history, clock);
    REQUIRE_FALSE(missing);
    CHECK_THAT(missing.error().message, Catch::Contains("placement.catalogue.path"));
    auto broken = placement::MakePlacementServices(
        Config("placement: {catalogue: {path: /nonexistent.yaml}}"), http, usage, history, clock
    );
    REQUIRE_FALSE(broken);
    CHECK_THAT(broken.error().message, Catch::Contains("/nonexistent.yaml"));
}

TEST_CASE("the demo catalogue and SLA file load once placeholders are substituted", "[placement][demo]") {
    std::string text = ReadFile(SourceDir() + "/orchestrator/demo/catalogue.yaml");
    auto raw = cmdb::ParseLocalCatalogueText(text, "catalogue.yaml");
    REQUIRE_FALSE(raw);
    CHECK_THAT(raw.error().message, Catch::Contains("placeholder"));
    for (std::size_t at = text.find("${"); at != std::string::npos; at = text.find("${")) {
        text.replace(at, text.find('}', at) - at + 1, "http://127.0.0.1:1");
    }
    auto catalogue = cmdb::ParseLocalCatalogueText(text, "catalogue.yaml");
    REQUIRE(catalogue);
    std::set<cmdb::ServiceKind> kinds;
    for (const auto& provider : catalogue->providers()) {
        for (const auto& service : provider->services) {
            kinds.insert(service.kind);
        }
    }
    for (auto kind :
         {cmdb::ServiceKind::kMarathon,
          cmdb::ServiceKind::kChronos,
          cmdb::ServiceKind::kKubernetes,
          cmdb::ServiceKind::kOpenStack,
          cmdb::ServiceKind::kSlurm}) {
        CHECK(kinds.count(kind) == 1);
    }
    CHECK(cmdb::FileSlaSource::Open(SourceDir() + "/orchestrator/demo/sla.yaml"));
}

}  // namespace
}  // namespace orch::test
