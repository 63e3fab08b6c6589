// Unbounded work per request (issue 16, class 4): a few bytes of template asked for a million
// node instances, each a resource row. The real binary with the default cap
// (deployments.max_instances = 1000), real PostgreSQL, the `oidc` fixture's issuer.
#include "../../integration/auth/oidc_provider.hpp"
#include "../auth/authed_orchestrator.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <string>

namespace {

using orch::Json;

// INDIGO Computes (a VIRTUAL_MACHINES deployment, so PUT may scale it): `count` instances of vm,
// one of other.
std::string ScalableTemplate() {
    return "tosca_definitions_version: tosca_simple_yaml_1_0\n"
           "imports:\n"
           "  - indigo_custom_types: "
           "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml\n"
           "topology_template:\n"
           "  inputs:\n"
           "    count: {type: integer, default: 1}\n"
           "  node_templates:\n"
           "    vm:\n"
           "      type: tosca.nodes.indigo.Compute\n"
           "      capabilities:\n"
           "        scalable:\n"
           "          properties:\n"
           "            count: {get_input: count}\n"
           "    other:\n"
           "      type: tosca.nodes.indigo.Compute\n"
           "      capabilities:\n"
           "        scalable:\n"
           "          properties:\n"
           "            count: 1\n";
}

std::string Body(int count) {
    return Json{{"template", ScalableTemplate()}, {"parameters", {{"count", count}}}, {"userGroup", "users"}}.dump();
}

using orch::test::ErrorMessage;

struct Setup {
    orch::test::OidcProvider& alpha = orch::test::OidcProvider::Shared("alpha");
    orch::test::AuthedOrchestrator api{{{{"alpha", alpha.issuer()}}}};
    std::string bob = alpha.UserToken("bob").access_token;

    orch::http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "") {
        return api.Call(method, path, bob, body);
    }
};

std::int64_t ResourceRows(const std::string& dsn) {
    pqxx::connection conn(dsn);
    pqxx::read_transaction tx(conn);
    return tx.exec1("SELECT count(*) FROM resources")[0].as<std::int64_t>();
}

}  // namespace

TEST_CASE(
    "a deployment asking for more instances than the cap is 400 naming it, and nothing is stored",
    "[e2e][security][deployments]"
) {
    Setup api;
    const std::string message = ErrorMessage(api.Call("POST", "/deployments", Body(1000)), 400);  // 1000 + 1
    CHECK(message.find("1001") != std::string::npos);
    CHECK(message.find("at most 1000") != std::string::npos);
    CHECK(message.find("deployments.max_instances") != std::string::npos);
    // Far over (the 500 after 50 s of the report): refused as fast, still nothing stored.
    CHECK(api.Call("POST", "/deployments", Body(1'000'000)).status == 400);
    CHECK(Json::parse(api.Call("GET", "/deployments").body)["page"]["totalElements"] == 0);
    CHECK(ResourceRows(api.api.dsn()) == 0);
    // At the cap: accepted, every instance a row (inserted in batches).
    const auto at_cap = api.Call("POST", "/deployments", Body(999));
    INFO(at_cap.body);
    REQUIRE(at_cap.status == 201);
    CHECK(ResourceRows(api.api.dsn()) == 1000);
}

TEST_CASE("scaling a deployment past the cap is refused and changes nothing", "[e2e][security][deployments]") {
    Setup api;
    const auto created = api.Call("POST", "/deployments", Body(2));
    INFO(created.body);
    REQUIRE(created.status == 201);
    const std::string id = Json::parse(created.body)["uuid"];
    api.api.WaitFor(id, "CREATE_FAILED", api.bob);  // empty catalogue; the workflow is done with it
    {
        // Stand-in for a successful deploy (no site here): PUT needs CREATE_COMPLETE.
        pqxx::connection conn(api.api.dsn());
        pqxx::work tx(conn);
        tx.exec_params("UPDATE deployments SET status = 'CREATE_COMPLETE' WHERE id = $1::uuid", id);
        tx.commit();
    }
    const std::int64_t rows = ResourceRows(api.api.dsn());
    const std::string message = ErrorMessage(api.Call("PUT", "/deployments/" + id, Body(5000)), 400);
    CHECK(message.find("at most 1000") != std::string::npos);
    CHECK(ResourceRows(api.api.dsn()) == rows);
    CHECK(Json::parse(api.Call("GET", "/deployments/" + id).body)["status"] == "CREATE_COMPLETE");
}
