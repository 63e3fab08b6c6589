// leases.* (app/lease_config): the operator's defaults and the sweep's settings, and a group's
// terms read from its SLA's `lease` entry over those defaults.
#include <cmdb/file_sla_source.hpp>
#include <orchestrator/app/lease_config.hpp>

#include <catch2/catch.hpp>

namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

orch::Result<orch::app::LeaseConfig> Parse(const std::string& yaml) {
    auto tree = orch::ConfigTree::FromYaml(yaml, "test.yaml");
    REQUIRE(tree);
    return orch::app::ParseLeaseConfig(*tree);
}

}  // namespace

TEST_CASE("leases.* defaults: no lease, no maximum, delete, warnings at 24h and 1h", "[leases][config]") {
    const auto config = Parse("log:\n  level: info\n");
    REQUIRE(config);
    CHECK_FALSE(config->defaults.default_duration.has_value());
    CHECK_FALSE(config->defaults.maximum.has_value());
    CHECK(config->defaults.action == orch::domain::LeaseAction::kDelete);
    CHECK(config->sweep.warnings == std::vector<milliseconds>{hours(24), hours(1)});
    const auto set = Parse(
        "leases:\n  default_duration: 72h\n  max_duration: 30d\n  action: stop\n  warnings: 2h, 10m\n"
        "  sweep_interval: 5s\n"
    );
    REQUIRE(set);
    CHECK(set->defaults.default_duration == hours(72));
    CHECK(set->defaults.maximum == hours(24 * 30));
    CHECK(set->defaults.action == orch::domain::LeaseAction::kStop);
    CHECK(set->sweep.warnings == std::vector<milliseconds>{hours(2), std::chrono::minutes(10)});
    CHECK(set->sweep.interval == std::chrono::seconds(5));
    CHECK(Parse("leases:\n  warnings: none\n")->sweep.warnings.empty());
    for (const std::string bad :
         {"leases:\n  action: archive\n",
          "leases:\n  default_duration: soon\n",
          "leases:\n  warnings: 1h,x\n",
          "leases:\n  sweep_interval: 5m\n",
          "leases:\n  max_duration: 0s\n"}) {
        INFO(bad);
        const auto parsed = Parse(bad);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().message.find("leases.") != std::string::npos);  // names the key
    }
}

TEST_CASE("a group's SLA lease terms override the operator's defaults", "[leases][config]") {
    const orch::Json slas{
        {"physics", {{"lease", {{"default", "8h"}, {"action", "stop"}}}}},
        {"chemistry", {{"lease", {{"maximum", "none"}, {"default", "soon"}}}}},
        {"biology", orch::Json::object()}};
    auto source = orch::cmdb::FileSlaSource::FromJson(slas, "slas.yaml");
    REQUIRE(source);
    orch::workflow::LeasePolicy defaults;
    defaults.default_duration = hours(24);
    defaults.maximum = hours(24 * 7);
    orch::app::SlaLeasePolicies policies(defaults, source->get());

    const auto physics = policies.ForGroup("physics", "https://iam/", "").value();
    CHECK(physics.default_duration == hours(8));
    CHECK(physics.maximum == hours(24 * 7));  // not in its SLA: the default
    CHECK(physics.action == orch::domain::LeaseAction::kStop);
    const auto chemistry = policies.ForGroup("chemistry", "https://iam/", "").value();
    CHECK_FALSE(chemistry.maximum.has_value());      // "none" clears it
    CHECK(chemistry.default_duration == hours(24));  // a bad term is ignored (logged)
    for (const std::string group : {"biology", "no-such-group", ""}) {
        const auto other = policies.ForGroup(group, "https://iam/", "").value();
        CHECK(other.default_duration == hours(24));
        CHECK(other.action == orch::domain::LeaseAction::kDelete);
    }
}

TEST_CASE("a deployment without a group gets placement.default_group's lease terms", "[leases][config]") {
    const orch::Json slas{{"physics", {{"lease", {{"default", "8h"}, {"action", "stop"}}}}}};
    auto source = orch::cmdb::FileSlaSource::FromJson(slas, "slas.yaml");
    REQUIRE(source);
    orch::workflow::LeasePolicy defaults;
    defaults.default_duration = hours(24);
    const auto parsed = Parse("placement:\n  default_group: physics\n");
    REQUIRE(parsed);
    CHECK(parsed->default_group == "physics");
    orch::app::SlaLeasePolicies policies(defaults, source->get(), parsed->default_group);
    const auto none = policies.ForGroup("", "https://iam/", "").value();
    CHECK(none.default_duration == hours(8));  // the default group's SLA, not the operator's 24h
    CHECK(none.action == orch::domain::LeaseAction::kStop);
    CHECK(policies.ForGroup("chemistry", "https://iam/", "").value().default_duration == hours(24));
    orch::app::SlaLeasePolicies without(defaults, source->get());
    CHECK(without.ForGroup("", "https://iam/", "").value().default_duration == hours(24));
}
