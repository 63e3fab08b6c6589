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
