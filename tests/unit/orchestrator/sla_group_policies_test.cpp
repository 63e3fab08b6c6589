// Per-group lifecycle policies from the local SLA file (docs/lifecycle.md): idle reclamation's
// `idle:` and self-healing's `self_healing:` read through the path elastic's `elastic:` uses,
// and which of the operator's keys and the group's own they win over.
#include "test_support/test_env.hpp"

#include <common/config.hpp>
#include <common/uuid.hpp>
#include <orchestrator/app/idle_config.hpp>
#include <orchestrator/app/workflow_config.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

namespace {

using std::chrono::seconds;

/// A configuration whose local SLA file holds `sla_text`, with `config_text` beside it.
struct SlaFile {
    std::string dir = orch::test::BinaryDir() + "/sla-policies-" + orch::RandomUuid().substr(0, 8);

    SlaFile() { std::filesystem::create_directories(dir); }
    ~SlaFile() { std::filesystem::remove_all(dir); }
    SlaFile(const SlaFile&) = delete;
    SlaFile& operator=(const SlaFile&) = delete;

    orch::ConfigTree Config(const std::string& sla_text, const std::string& config_text) const {
        std::ofstream(dir + "/sla.yaml") << sla_text;
        auto tree = orch::ConfigTree::FromYaml(
            "placement:\n  sla: {type: file, path: \"" + dir + "/sla.yaml\"}\n" + config_text, "test"
        );
        REQUIRE(tree);
        return *tree;
    }
};

}  // namespace

TEST_CASE("idle: a group's policy in the SLA file wins over idle.groups and idle.*", "[idle][config]") {
    const SlaFile file;
    const auto config = orch::app::ParseIdleConfig(file.Config(
        "gpu:\n  preferences: []\n  sla: []\n  idle: {action: delete, notice: 10m}\n"
        "quiet:\n  idle: {enabled: true}\n"
        "other:\n  preferences: []\n  sla: []\n",
        "idle:\n  duration: 2h\n  notice: 1h\n  groups:\n    gpu: {enabled: true, threshold_percent: 10, notice: 30m}\n"
    ));
    REQUIRE(config);
    const auto& gpu = config->policies.For("gpu");
    CHECK(gpu.action == orch::workflow::IdleAction::kDelete);  // the SLA's
    CHECK(gpu.notice == seconds(600));                         // the SLA's over idle.groups.gpu
    CHECK(gpu.threshold_percent == 10);                        // idle.groups.gpu's, not written in the SLA
    CHECK(gpu.enabled);                                        // idle.groups.gpu's
    CHECK(gpu.duration == seconds(7200));                      // idle.*
    CHECK(config->policies.For("quiet").enabled);              // enabled by the SLA alone...
    CHECK(config->policies.For("quiet").duration == seconds(7200));
    CHECK(config->enabled);                                // ...which turns the sweep on
    CHECK(config->policies.by_group.count("other") == 0);  // the operator's defaults
    CHECK_FALSE(config->policies.For("other").enabled);
}

TEST_CASE("idle: the SLA file's policy alone turns the sweep on, and a bad value names its key", "[idle][config]") {
    const SlaFile file;
    auto config = orch::app::ParseIdleConfig(file.Config("gpu:\n  idle: {enabled: true}\n", "idle: {}\n"));
    REQUIRE(config);
    CHECK(config->enabled);
    config = orch::app::ParseIdleConfig(file.Config("gpu:\n  idle: {action: pause}\n", "idle: {}\n"));
    REQUIRE_FALSE(config);
    CHECK_THAT(config.error().message, Catch::Contains("gpu.idle.action"));
}

TEST_CASE(
    "self-healing: a group's `self_healing.enabled` in the SLA file is the group's default", "[self-heal][config]"
) {
    const SlaFile file;
    orch::workflow::EngineOptions engine;
    orch::workflow::StepOptions steps;
    REQUIRE(orch::app::ParseWorkflowConfig(
        file.Config(
            "critical:\n  preferences: []\n  sla: []\n  self_healing: {enabled: true}\n"
            "scratch:\n  self_healing: {enabled: false}\n"
            "other:\n  preferences: []\n",
            "self_healing: {default: false}\n"
        ),
        engine,
        steps
    ));
    CHECK(steps.self_heal.enabled_by_group == std::map<std::string, bool>{{"critical", true}, {"scratch", false}});

    const auto bad =
        orch::app::ParseWorkflowConfig(file.Config("critical:\n  self_healing: {enabled: often}\n", ""), engine, steps);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("critical.self_healing.enabled"));
}

TEST_CASE("per-group policies are read from the local SLA file only", "[idle][self-heal][config]") {
    const SlaFile file;
    // SLAM as the SLA source: the file (still there) is not the groups' word.
    auto tree = orch::ConfigTree::FromYaml(
        "placement:\n  sla: {type: slam, url: \"http://127.0.0.1:9\", path: \"" + file.dir + "/sla.yaml\"}\nidle: {}\n",
        "test"
    );
    std::ofstream(file.dir + "/sla.yaml") << "gpu:\n  idle: {enabled: true}\n  self_healing: {enabled: true}\n";
    REQUIRE(tree);
    const auto idle = orch::app::ParseIdleConfig(*tree);
    REQUIRE(idle);
    CHECK(idle->policies.by_group.empty());
    orch::workflow::EngineOptions engine;
    orch::workflow::StepOptions steps;
    REQUIRE(orch::app::ParseWorkflowConfig(*tree, engine, steps));
    CHECK(steps.self_heal.enabled_by_group.empty());
}

TEST_CASE(
    "admission: a group's `admission.weight` in the SLA file wins over workflow.admission_weights",
    "[admission][config]"
) {
    const SlaFile file;
    orch::workflow::EngineOptions engine;
    orch::workflow::StepOptions steps;
    REQUIRE(orch::app::ParseWorkflowConfig(
        file.Config(
            "physics:\n  preferences: []\n  sla: []\n  admission: {weight: 4}\n"
            "bio:\n  admission: {}\n",
            "workflow:\n  admission_weights: {physics: 2, bio: 3, chem: 5}\n  admission_default_weight: 0.5\n"
        ),
        engine,
        steps
    ));
    CHECK(steps.admission_weights.For("physics") == 4);  // the SLA's
    CHECK(steps.admission_weights.For("bio") == 3);      // no weight in its section: the operator's
    CHECK(steps.admission_weights.For("chem") == 5);     // not in the SLA file
    CHECK(steps.admission_weights.For("other") == 0.5);  // the default

    const auto bad =
        orch::app::ParseWorkflowConfig(file.Config("physics:\n  admission: {weight: -1}\n", ""), engine, steps);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("physics.admission.weight"));
}

TEST_CASE("idle: a deployment without a group gets placement.default_group's policy", "[idle][config]") {
    const SlaFile file;
    const auto config = orch::app::ParseIdleConfig(file.Config(
        "gpu:\n  preferences: []\n  sla: []\n  idle: {enabled: true, action: delete, notice: 10m}\n",
        "  default_group: gpu\nidle:\n  notice: 1h\n"  // continues the fixture's `placement:` mapping
    ));
    REQUIRE(config);
    CHECK(config->policies.For("").enabled);  // the default group's, not the operator's (off)
    CHECK(config->policies.For("").action == orch::workflow::IdleAction::kDelete);
    CHECK(config->policies.For("").notice == seconds(600));
    CHECK_FALSE(config->policies.For("other").enabled);  // a group of its own keeps its own

    const auto no_default = orch::app::ParseIdleConfig(
        file.Config("gpu:\n  preferences: []\n  sla: []\n  idle: {enabled: true}\n", "idle:\n  notice: 1h\n")
    );
    REQUIRE(no_default);
    CHECK_FALSE(no_default->policies.For("").enabled);  // no default group: the operator's defaults
}
