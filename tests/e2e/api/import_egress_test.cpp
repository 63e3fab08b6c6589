// The imports a user's template names are requests a user asked for: they go through the egress
// policy like callbacks, also from a host the operator allows imports from (issue "hostile
// input": one egress policy for every user-directed outbound call).
#include "api_harness.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;

// Port 9 (discard) on loopback: nothing listens, so a fetch that is let through fails to connect.
const char* const kLoopbackImport =
    "tosca_definitions_version: tosca_simple_yaml_1_0\n"
    "imports:\n"
    "  - internal: https://127.0.0.1:9/types.yaml\n"
    "topology_template:\n"
    "  node_templates:\n"
    "    vm:\n"
    "      type: tosca.nodes.Compute\n";

std::string CreateMessage(orch::test::ApiHarness& api) {
    const Json body = {{"template", kLoopbackImport}, {"parameters", Json::object()}};
    const auto res = api.Call("POST", "/deployments", body.dump());
    INFO(res.status << " " << res.body);
    REQUIRE(res.status == 400);
    return Json::parse(res.body)["message"].get<std::string>();
}

}  // namespace

TEST_CASE("an import from a loopback address is refused by the egress policy", "[e2e][api][security]") {
    // The operator lets imports come from 127.0.0.1, but no egress entry lets user-directed
    // requests reach loopback: the policy refuses before any connection is made.
    orch::test::ApiHarness refused("import-egress", "", {{"ORCHESTRATOR_TOSCA__ALLOWED_HOSTS", "127.0.0.1"}});
    const std::string message = CreateMessage(refused);
    INFO(message);
    CHECK(message.find("egress policy refuses") != std::string::npos);

    // With loopback on the egress allow-list the fetch is attempted (and fails to connect).
    orch::test::ApiHarness allowed(
        "import-egress-allowed",
        orch::test::ApiHarness::kLoopbackCallbacks,
        {{"ORCHESTRATOR_TOSCA__ALLOWED_HOSTS", "127.0.0.1"}}
    );
    const std::string attempted = CreateMessage(allowed);
    INFO(attempted);
    CHECK(attempted.find("egress policy") == std::string::npos);
    CHECK(attempted.find("https://127.0.0.1:9/types.yaml") != std::string::npos);
}
