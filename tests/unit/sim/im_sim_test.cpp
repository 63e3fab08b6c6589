// The IM simulator's own checks: requests against IM's OpenAPI document, the auth records.
#include "sim_test_util.hpp"

#include <catch2/catch.hpp>
#include <sim/im_sim.hpp>
#include <sim/im_swagger.hpp>

using namespace orch::sim;
using orch::Json;

namespace {

constexpr char kAuth[] =
    "type = InfrastructureManager; token = t\\nid = ost; type = OpenStack; host = https://k:5000/v3; "
    "username = egi.eu; tenant = openid; password = t; auth_version = 3.x_oidc_access_token";

SimResponse ImCall(
    SiteSim& site,
    const std::string& method,
    const std::string& target,
    std::string body = {},
    orch::http::Headers headers = {{"Authorization", kAuth}}
) {
    return site.Handle(SimApi::kIm, MakeSimRequest(method, target, std::move(body), std::move(headers)));
}

}  // namespace

TEST_CASE("IM sim: requests are checked against IM's OpenAPI document", "[sim][im]") {
    auto swagger = ImSwagger::Embedded();
    REQUIRE(swagger);
    CHECK((*swagger)->operation_count() >= 25);
    auto site = test::StillSite();
    CHECK(ImCall(*site, "GET", "/nothing").status == 404);
    CHECK(ImCall(*site, "PATCH", "/infrastructures").status == 405);
    CHECK(
        ImCall(
            *site,
            "POST",
            "/infrastructures?async=maybe",
            "x",
            {{"Authorization", kAuth}, {"Content-Type", "text/yaml"}}
        ).status == 400
    );
    CHECK(
        ImCall(
            *site, "POST", "/infrastructures?bogus=1", "x", {{"Authorization", kAuth}, {"Content-Type", "text/yaml"}}
        ).status == 400
    );
    CHECK(
        ImCall(
            *site, "POST", "/infrastructures?async=true", "x", {{"Authorization", kAuth}, {"Content-Type", "image/png"}}
        ).status == 415
    );
    CHECK(ImCall(*site, "GET", "/infrastructures/inf-1/state", {}, {}).status == 401);
    CHECK(ImCall(*site, "GET", "/infrastructures/inf-1/state").status == 404);
    // A template our engine refuses is IM's 400 with the parser's words.
    const auto bad = ImCall(
        *site,
        "POST",
        "/infrastructures?async=true",
        "tosca_definitions_version: nope\n",
        {{"Authorization", kAuth}, {"Content-Type", "text/yaml"}}
    );
    CHECK(bad.status == 400);
    CHECK(bad.body.find("Error parsing TOSCA") != std::string::npos);
}

TEST_CASE("IM sim: auth records are parsed and checked as IM does", "[sim][im]") {
    auto parsed = ParseImAuthorization(kAuth);
    REQUIRE(std::holds_alternative<std::vector<ImAuthRecord>>(parsed));
    const auto& records = std::get<std::vector<ImAuthRecord>>(parsed);
    REQUIRE(records.size() == 2);
    CHECK(records[1].at("auth_version") == "3.x_oidc_access_token");
    CHECK(CheckImAuthorization(records, {}).empty());
    CHECK(CheckImAuthorization(records, {"other"}).find("token is not valid") != std::string::npos);
    CHECK(!CheckImAuthorization({records[0]}, {}).empty());  // no cloud
    CHECK(!CheckImAuthorization({records[1]}, {}).empty());  // no IM record
    auto wrong = records;
    wrong[1]["auth_version"] = "3.x_magic";
    CHECK(CheckImAuthorization(wrong, {}).find("auth_version") != std::string::npos);
    CHECK(std::holds_alternative<std::string>(ParseImAuthorization("type = OpenStack; host")));
    CHECK(std::holds_alternative<std::string>(ParseImAuthorization("type = a; type = b")));
}

TEST_CASE("IM sim: AddResources and DestroyVM are checked and played on the infrastructure", "[sim][im]") {
    auto site = test::StillSite();
    const orch::http::Headers yaml = {{"Authorization", kAuth}, {"Content-Type", "text/yaml"}};
    const auto tosca = [](int count, const std::string& removal) {
        // INDIGO's scalable capability (count, removal_list), declared here: no imports needed.
        return "tosca_definitions_version: tosca_simple_yaml_1_0\n"
               "capability_types:\n  sim.Scalable:\n    derived_from: tosca.capabilities.Scalable\n"
               "    properties:\n      count: {type: integer}\n"
               "      removal_list: {type: list, required: false, entry_schema: {type: string}}\n"
               "node_types:\n  sim.Compute:\n    derived_from: tosca.nodes.Compute\n"
               "    capabilities:\n      scalable: {type: sim.Scalable}\n"
               "topology_template:\n  node_templates:\n"
               "    wn:\n      type: sim.Compute\n      capabilities:\n        scalable:\n"
               "          properties:\n            count: " +
               std::to_string(count) + "\n" + removal;
    };
    const auto created = ImCall(*site, "POST", "/infrastructures?async=true", tosca(2, ""), yaml);
    INFO(created.body);
    REQUIRE(created.status == 200);
    const std::string inf = "/infrastructures/inf-1";
    const auto vms = [&] {
        std::vector<std::string> ids;
        const Json objects = site->Objects();  // kept alive: the loop reads into it
        for (const auto& vm : objects["im"][0]["vms"]) {
            ids.push_back(vm["id"].get<std::string>());
        }
        return ids;
    };
    REQUIRE(vms() == std::vector<std::string>{"0", "1"});

    // The swagger's context flag is checked; RADL bodies are not simulated.
    CHECK(ImCall(*site, "POST", inf + "?context=maybe", tosca(3, ""), yaml).status == 400);
    CHECK(ImCall(*site, "POST", inf, "x", {{"Authorization", kAuth}, {"Content-Type", "image/png"}}).status == 415);
    CHECK(ImCall(*site, "POST", "/infrastructures/inf-9", tosca(3, ""), yaml).status == 404);

    const auto added = ImCall(*site, "POST", inf + "?context=yes", tosca(3, ""), yaml);
    REQUIRE(added.status == 200);
    CHECK(added.body.find(inf + "/vms/2") != std::string::npos);
    CHECK(vms() == std::vector<std::string>{"0", "1", "2"});

    // The removal_list names IM's VM ids; one IM does not know is refused and changes nothing.
    const auto unknown = ImCall(*site, "POST", inf, tosca(2, "            removal_list: ['7']\n"), yaml);
    CHECK(unknown.status == 400);
    CHECK(vms() == std::vector<std::string>{"0", "1", "2"});
    CHECK(ImCall(*site, "POST", inf, tosca(2, "            removal_list: ['1']\n"), yaml).status == 200);
    CHECK(vms() == std::vector<std::string>{"0", "2"});

    // DestroyVM takes one id or a list; ids are never reused.
    CHECK(ImCall(*site, "DELETE", inf + "/vms/9").status == 404);
    CHECK(ImCall(*site, "DELETE", inf + "/vms/0,").status == 400);
    CHECK(ImCall(*site, "DELETE", inf + "/vms/0,2").status == 200);
    CHECK(vms().empty());
    CHECK(ImCall(*site, "POST", inf, tosca(1, ""), yaml).status == 200);
    CHECK(vms() == std::vector<std::string>{"3"});
}
