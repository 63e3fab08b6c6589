// Parameters that name no input of the template (issue 19), against the real binary: every
// request path that takes parameters (create, placement dry run, schedule) answers the same 400
// naming the parameter and the closest input; a known parameter still goes through.
#include "api_harness.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;

const char* const kGpuTemplate =
    "tosca_definitions_version: tosca_simple_yaml_1_0\n"
    "imports:\n"
    "  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml\n"
    "topology_template:\n"
    "  inputs:\n"
    "    num_gpus: {type: integer, default: 1}\n"
    "  node_templates:\n"
    "    vm:\n"
    "      type: tosca.nodes.indigo.Compute\n"
    "      capabilities:\n"
    "        host: {properties: {num_gpus: {get_input: num_gpus}}}\n";

std::string Message(const orch::http::ClientResponse& res) {
    INFO(res.status << " " << res.body);
    REQUIRE(res.status == 400);
    return Json::parse(res.body)["message"].get<std::string>();
}

}  // namespace

TEST_CASE("a parameter that is no input is refused on every path, naming the closest input", "[e2e][api][parameters]") {
    orch::test::ApiHarness api("unknown-parameters");
    const std::string expected = "Parameter 'num_gpu' is not an input of the template; did you mean 'num_gpus'?";
    const Json body = {{"template", kGpuTemplate}, {"parameters", {{"num_gpu", 2}}}};
    CHECK(Message(api.Call("POST", "/deployments", body.dump())) == expected);
    CHECK(Message(api.Call("POST", "/placement", body.dump())) == expected);
    Json schedule = body;
    schedule["fileExpression"] = "user\\.alice:.*\\.root";
    schedule["replicationExpression"] = "CNAF_DISK";
    schedule["numberOfReplicas"] = 1;
    CHECK(Message(api.Call("POST", "/schedules", schedule.dump())) == expected);
    // Nothing close: the parameter alone.
    const Json far = {{"template", kGpuTemplate}, {"parameters", {{"colour", "red"}}}};
    CHECK(
        Message(api.Call("POST", "/deployments", far.dump())) == "Parameter 'colour' is not an input of the template"
    );
    // The input itself is fine.
    const Json good = {{"template", kGpuTemplate}, {"parameters", {{"num_gpus", 2}}}};
    CHECK(api.Call("POST", "/deployments", good.dump()).status == 201);
}
