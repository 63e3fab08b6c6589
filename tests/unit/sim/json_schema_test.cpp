#include "sim_test_util.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <sim/json_schema.hpp>
#include <sim/schema_store.hpp>
#include <test_support/test_env.hpp>

using orch::Json;
using orch::sim::SchemaSet;
using orch::sim::SchemaViolation;

namespace {

std::vector<SchemaViolation> Check(const std::string& schema, const Json& doc) {
    auto result = orch::sim::test::Schemas()->Validate(schema, doc, 20);
    REQUIRE(result);
    return *result;
}

std::vector<SchemaViolation> CheckInline(const Json& schema, const Json& doc) {
    SchemaSet set;
    REQUIRE(set.Add("s.json", schema));
    auto result = set.Validate("s.json", doc, 20);
    REQUIRE(result);
    return *result;
}

bool Mentions(const std::vector<SchemaViolation>& v, const std::string& path, const std::string& words) {
    for (const auto& item : v) {
        if (item.path == path && item.message.find(words) != std::string::npos) {
            return true;
        }
    }
    return false;
}

Json GpuDeployment() {
    return Json::parse(R"({
      "apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "train", "labels": {"app": "train"}},
      "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "train"}},
        "template": {"metadata": {"labels": {"app": "train"}},
          "spec": {"nodeSelector": {"nvidia.com/gpu.product": "Tesla-V100-PCIE-16GB"},
            "containers": [{"name": "train", "image": "tensorflow/tensorflow:latest-gpu",
              "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "2Gi"}, "requests": {"cpu": "500m"}},
              "ports": [{"containerPort": 8888, "protocol": "TCP"}]}]}}}})");
}

}  // namespace

TEST_CASE("the embedded schemas load, resolve every $ref and match the files", "[sim][schema]") {
    const auto schemas = orch::sim::test::Schemas();
    for (const char* name :
         {"AppDefinition.json",
          "Group.json",
          "deployment-apps-v1.json",
          "job-batch-v1.json",
          "cronjob-batch-v1beta1.json",
          "service-v1.json",
          "namespace-v1.json"}) {
        CHECK(schemas->Has(name));
    }
    CHECK(schemas->CheckReferences());
    auto from_dir = orch::sim::LoadSchemasFromDir(orch::test::SharedDir() + "/schemas");
    REQUIRE(from_dir);
    CHECK((*from_dir)->Names() == schemas->Names());
    CHECK_FALSE(orch::sim::LoadSchemasFromDir("/nonexistent"));
}

TEST_CASE("the Java orchestrator's Marathon app validates, its uppercase network mode does not", "[sim][schema]") {
    const Json java = Json::parse(orch::test::ReadFile(
        orch::test::SharedDir() + "/tosca-corpus/indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.json"
    ));
    CHECK(Check("AppDefinition.json", java["apps"][0]).empty());

    Json ucr = {
        {"id", "gpu"},
        {"cpus", 1},
        {"mem", 1024},
        {"gpus", 1},
        {"networks", {{{"mode", "HOST"}}}},
        {"container", {{"type", "MESOS"}, {"docker", {{"image", "tensorflow/tensorflow"}}}}}};
    auto violations = Check("AppDefinition.json", ucr);
    CHECK(Mentions(violations, "/networks/0/mode", "is not one of"));
    ucr["networks"][0]["mode"] = "host";
    CHECK(Check("AppDefinition.json", ucr).empty());
}

TEST_CASE(
    "Marathon schema keywords: pattern, not, tuple items, patternProperties, $ref to another file", "[sim][schema]"
) {
    CHECK(Mentions(Check("AppDefinition.json", {{"id", "Bad_ID"}}), "/id", "does not match pattern"));
    CHECK(Mentions(Check("AppDefinition.json", {{"id", "a"}, {"cmd", "x"}, {"args", {"y"}}}), "", "not allowed"));
    CHECK(Mentions(
        Check("AppDefinition.json", {{"id", "a"}, {"constraints", {{"host", "NEAR", "x"}}}}),
        "/constraints/0/1",
        "is not one of"
    ));
    CHECK(Mentions(
        Check("AppDefinition.json", {{"id", "a"}, {"constraints", {{"a", "LIKE", "b", "extra"}}}}),
        "/constraints/0/3",
        "at most 3"
    ));
    CHECK(Mentions(Check("AppDefinition.json", {{"id", "a"}, {"constraints", {{"a"}}}}), "/constraints/0", "at least 2")
    );
    CHECK(Mentions(
        Check("AppDefinition.json", {{"id", "a"}, {"env", {{"K", 5}}}}),
        "/env/K",
        "expected string or object, got integer"
    ));
    CHECK(Mentions(Check("AppDefinition.json", {{"id", "a"}, {"gpus", -1}}), "/gpus", "at least 0"));
    CHECK(Mentions(Check("AppDefinition.json", {{"id", "a"}, {"bogus", 1}}), "/bogus", "unknown field"));
    // Group.json reaches AppDefinition.json through "./AppDefinition.json".
    CHECK(Mentions(
        Check("Group.json", {{"id", "/g"}, {"apps", {{{"id", "a"}, {"instances", "two"}}}}}),
        "/apps/0/instances",
        "expected integer"
    ));
    CHECK(Check("Group.json", {{"id", "/g"}, {"apps", {{{"id", "a"}, {"instances", 2}}}}}).empty());
}

TEST_CASE("Kubernetes schemas accept a GPU Deployment and reject unknown or mistyped fields", "[sim][schema]") {
    Json deployment = GpuDeployment();
    CHECK(Check("deployment-apps-v1.json", deployment).empty());
    deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] = 1.5;  // Quantity: number ok
    CHECK(Check("deployment-apps-v1.json", deployment).empty());
    deployment["spec"]["template"]["spec"]["containers"][0]["gpus"] = 1;
    CHECK(
        Mentions(Check("deployment-apps-v1.json", deployment), "/spec/template/spec/containers/0/gpus", "unknown field")
    );
    Json mistyped = GpuDeployment();
    mistyped["spec"]["replicas"] = "one";
    CHECK(Mentions(Check("deployment-apps-v1.json", mistyped), "/spec/replicas", "expected integer, got string"));
    Json quantity = GpuDeployment();
    quantity["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"] = true;
    CHECK(Mentions(
        Check("deployment-apps-v1.json", quantity),
        "/spec/template/spec/containers/0/resources/limits/memory",
        "expected"
    ));
    Json wrong_kind = GpuDeployment();
    wrong_kind["apiVersion"] = "extensions/v1beta1";
    CHECK(Mentions(Check("deployment-apps-v1.json", wrong_kind), "/apiVersion", "is not one of"));
    Json no_image = GpuDeployment();
    no_image["spec"]["template"]["spec"]["containers"][0].erase("name");
    CHECK(Mentions(
        Check("deployment-apps-v1.json", no_image),
        "/spec/template/spec/containers/0",
        "missing required field \"name\""
    ));
}

TEST_CASE("draft-04 and draft-07 keyword semantics", "[sim][schema]") {
    const Json bounds = {
        {"type", "object"},
        {"properties",
         {{"a", {{"type", "number"}, {"minimum", 1}, {"exclusiveMinimum", true}}},
          {"b", {{"type", "number"}, {"exclusiveMaximum", 10}}},
          {"s", {{"type", "string"}, {"minLength", 2}, {"maxLength", 3}}},
          {"u", {{"type", "array"}, {"uniqueItems", true}}},
          {"any", {{"anyOf", {{{"type", "string"}}, {{"type", "integer"}}}}}},
          {"all", {{"allOf", {{{"minimum", 0}}, {{"maximum", 5}}}}}},
          {"one", {{"oneOf", {{{"type", "integer"}}, {{"type", "number"}}}}}},
          {"c", {{"const", "x"}}}}}};
    CHECK(
        CheckInline(
            bounds,
            {{"a", 2}, {"b", 9.5}, {"s", "h\xC3\xA9"}, {"u", {1, 2}}, {"any", 3}, {"all", 5}, {"one", 1.5}, {"c", "x"}}
        ).empty()
    );
    CHECK(Mentions(CheckInline(bounds, {{"a", 1}}), "/a", "greater than"));
    CHECK(Mentions(CheckInline(bounds, {{"b", 10}}), "/b", "less than"));
    CHECK(Mentions(CheckInline(bounds, {{"s", "\xC3\xA9"}}), "/s", "at least 2"));  // one character, two bytes
    CHECK(Mentions(CheckInline(bounds, {{"s", "abcd"}}), "/s", "at most 3"));
    CHECK(Mentions(CheckInline(bounds, {{"u", {1, 1}}}), "/u", "unique"));
    CHECK(Mentions(CheckInline(bounds, {{"any", 1.5}}), "/any", "anyOf"));
    CHECK(Mentions(CheckInline(bounds, {{"all", 6}}), "/all", "at most 5"));
    CHECK(Mentions(CheckInline(bounds, {{"one", 2}}), "/one", "more than one"));  // 2 is an integer and a number
    CHECK(Mentions(CheckInline(bounds, {{"c", "y"}}), "/c", "must be"));
    CHECK(CheckInline({{"type", "integer"}}, 2.0).empty());  // integral floats count as integers
    CHECK_FALSE(CheckInline({{"type", "integer"}}, 2.5).empty());
}

TEST_CASE("the validator reports paths with escaping, stops at its limit and refuses bad input", "[sim][schema]") {
    const Json schema = {
        {"type", "object"}, {"additionalProperties", false}, {"properties", {{"a/b", {{"type", "string"}}}}}};
    CHECK(Mentions(CheckInline(schema, {{"a/b", 1}}), "/a~1b", "expected string"));
    Json many = Json::object();
    for (int i = 0; i < 50; ++i) {
        many["k" + std::to_string(i)] = i;
    }
    SchemaSet set;
    REQUIRE(set.Add("s.json", schema));
    CHECK(set.Validate("s.json", many, 5)->size() == 5);
    CHECK_FALSE(set.Validate("missing.json", many));
    CHECK_FALSE(set.Add("bad.json", Json::array()));
    CHECK_FALSE(set.AddText("bad.json", "{not json"));
    CHECK_FALSE(set.Add("re.json", {{"pattern", "(unclosed"}}));
    SchemaSet dangling;
    REQUIRE(dangling.Add("d.json", {{"$ref", "#/definitions/nowhere"}}));
    CHECK_FALSE(dangling.CheckReferences());
    CHECK(orch::sim::DescribeViolations({{"", "x"}, {"/a", "y"}}) == "(root): x; /a: y");
}
