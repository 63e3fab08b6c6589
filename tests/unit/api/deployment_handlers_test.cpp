// POST/GET/DELETE /deployments through the real router and handlers, without a server or a
// database (test_support/handler_harness.hpp): what each answers, what it stores, and the
// {code,title,message} body of every refusal.
#include "test_support/handler_harness.hpp"

#include <catch2/catch.hpp>

namespace {

using orch::Json;
using orch::test::HandlerHarness;

Json Body(const orch::server::Response& res) {
    return Json::parse(res.body);
}

// The contract's error body: exactly these three members, the code being the status.
void CheckError(const orch::server::Response& res, int status, const std::string& message_part) {
    CHECK(res.status == status);
    const Json body = Body(res);
    CHECK(body.size() == 3);
    CHECK(body.value("code", 0) == status);
    CHECK_FALSE(body.value("title", "").empty());
    CHECK(body.value("message", "").find(message_part) != std::string::npos);
}

std::string Create(
    HandlerHarness& h, const Json& body = Json{{"userGroup", "users"}, {"template", "tosca_definitions_version: x"}}
) {
    const auto res = h.Call("POST", "/deployments", body.dump());
    INFO(res.body);
    REQUIRE(res.status == 201);
    return Body(res).value("uuid", "");
}

}  // namespace

TEST_CASE("POST /deployments stores the deployment, queues its deploy step and answers 201", "[api][deployments]") {
    HandlerHarness h;
    const auto res = h.Call(
        "POST",
        "/deployments",
        Json{{"userGroup", "users"}, {"template", "tosca_definitions_version: x"}, {"parameters", {{"count", 3}}}}.dump(
        )
    );
    INFO(res.body);
    REQUIRE(res.status == 201);
    const Json body = Body(res);
    const std::string id = body.value("uuid", "");
    CHECK(body.value("status", "") == "CREATE_IN_PROGRESS");
    CHECK(body.value("creationTime", "") == orch::domain::FormatContractTime(h.clock.now()));
    CHECK(body["createdBy"].value("subject", "") == "alice");
    CHECK(h.wakes.load() == 1);

    const auto stored = h.stores.deployments.Get(id);
    REQUIRE(stored);
    REQUIRE(stored->has_value());
    CHECK((*stored)->owner->issuer == "https://iam.example/");
    CHECK(h.stores.deployments.ListResources(id, std::nullopt, 0, 10, {}).value().total == 3);
    const auto jobs = h.stores.workflow.Claim("t", 10, std::chrono::minutes(1)).value();
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].kind == orch::workflow::JobKind::kDeploy);
}

TEST_CASE("POST /deployments refuses bad bodies with 400 and stores nothing", "[api][deployments][errors]") {
    HandlerHarness h;
    CheckError(h.Call("POST", "/deployments", "{not json"), 400, "");
    CheckError(
        h.Call("POST", "/deployments", Json{{"userGroup", "users"}, {"parameters", Json::object()}}.dump()),
        400,
        "A TOSCA template must be provided"
    );
    CheckError(
        h.Call("POST", "/deployments", Json{{"userGroup", "users"}, {"template", "INVALID"}}.dump()), 400, "fake error"
    );
    CheckError(
        h.Call("POST", "/deployments", Json{{"userGroup", "users"}, {"template", "t"}, {"parameters", 5}}.dump()),
        400,
        "must be a JSON object"
    );
    CHECK(h.stores.deployments.List({.owner = orch::auth::OwnerFilter::VisibleTo(h.principal())}).value().total == 0);
    CHECK(h.wakes.load() == 0);
}

TEST_CASE(
    "GET /deployments: a user lists their own, an admin their issuer's; newest first, paged", "[api][deployments]"
) {
    HandlerHarness h;
    const std::string first = Create(h);
    h.clock.Advance(std::chrono::minutes(1));
    const std::string second = Create(h);
    h.principal() = HandlerHarness::User("https://other.example/", "carol");
    const std::string foreign = Create(h);

    h.principal() = HandlerHarness::User("https://iam.example/", "bob");
    const Json bobs = Body(h.Call("GET", "/deployments"));
    CHECK(bobs["content"].empty());  // not alice's: a user lists their own
    CHECK(bobs["page"].value("totalElements", -1) == 0);

    h.principal().admin = true;
    const auto res = h.Call("GET", "/deployments?page=0&size=1");
    REQUIRE(res.status == 200);
    const Json body = Body(res);
    REQUIRE(body["content"].size() == 1);
    CHECK(body["content"][0].value("uuid", "") == second);
    CHECK(body["page"].value("totalElements", 0) == 2);  // carol's, of another issuer, is not counted
    const Json next = Body(h.Call("GET", "/deployments?page=1&size=1"));
    REQUIRE(next["content"].size() == 1);
    CHECK(next["content"][0].value("uuid", "") == first);

    h.principal() = HandlerHarness::User("https://other.example/", "carol");
    const Json carols = Body(h.Call("GET", "/deployments"));
    REQUIRE(carols["content"].size() == 1);
    CHECK(carols["content"][0].value("uuid", "") == foreign);
    CheckError(h.Call("GET", "/deployments?sort=bogus,asc"), 400, "");
}

TEST_CASE("GET /deployments/{id}: 200 for a visible one, 404 body otherwise", "[api][deployments][errors]") {
    HandlerHarness h;
    const std::string id = Create(h);
    const auto found = h.Call("GET", "/deployments/" + id);
    REQUIRE(found.status == 200);
    CHECK(Body(found).value("uuid", "") == id);

    CheckError(h.Call("GET", "/deployments/11111111-2222-4333-8444-555555555555"), 404, "doesn't exist");
    h.principal() = HandlerHarness::User("https://other.example/", "alice");  // same name, other issuer
    CheckError(h.Call("GET", "/deployments/" + id), 404, "doesn't exist");
}

TEST_CASE("DELETE /deployments/{id}: 204, DELETE_IN_PROGRESS, then 409 while deleting", "[api][deployments]") {
    HandlerHarness h;
    const std::string id = Create(h);
    const int wakes = h.wakes.load();
    REQUIRE(h.Call("DELETE", "/deployments/" + id).status == 204);
    CHECK(Body(h.Call("GET", "/deployments/" + id)).value("status", "") == "DELETE_IN_PROGRESS");
    CHECK(h.wakes.load() == wakes + 1);
    CheckError(h.Call("DELETE", "/deployments/" + id), 409, "DELETE_IN_PROGRESS");
    CheckError(h.Call("DELETE", "/deployments/11111111-2222-4333-8444-555555555555"), 404, "doesn't exist");

    // Another user of the same issuer sees it but may not delete it.
    const std::string other = Create(h);
    h.principal() = HandlerHarness::User("https://iam.example/", "bob");
    CHECK(h.Call("DELETE", "/deployments/" + other).status == 403);
    CHECK(Body(h.Call("GET", "/deployments/" + other)).value("status", "") == "CREATE_IN_PROGRESS");
}

TEST_CASE("unknown paths and methods get 404 and 405 bodies as from the server", "[api][errors]") {
    HandlerHarness h;
    CheckError(h.Call("GET", "/nowhere"), 404, "No handler found");
    const auto res = h.Call("PATCH", "/deployments");
    CheckError(res, 405, "not supported");
    CHECK(orch::http::FindHeader(res.headers, "Allow").find("POST") != std::string::npos);
}

TEST_CASE(
    "POST /deployments keeps the target provider and region, and refuses bad ones naming the field",
    "[api][deployments][errors]"
) {
    HandlerHarness h;
    const std::string id = Create(
        h,
        Json{
            {"userGroup", "users"},
            {"template", "tosca_definitions_version: x"},
            {"targetProvider", "RECAS-BARI"},
            {"targetRegion", "RegionTwo"}}
    );
    const auto stored = h.stores.deployments.Get(id);
    REQUIRE(stored);
    REQUIRE(stored->has_value());
    CHECK((*stored)->options.target_provider == "RECAS-BARI");
    CHECK((*stored)->options.target_region == "RegionTwo");
    const std::vector<std::pair<const char*, Json>> refused = {
        {"targetProvider", ""},
        {"targetProvider", 5},
        {"targetRegion", Json::array({"RegionOne"})},
        {"targetRegion", std::string(256, 'r')}};
    for (const auto& [field, value] : refused) {
        INFO(field << " = " << value.dump());
        CheckError(
            h.Call("POST", "/deployments", Json{{"userGroup", "users"}, {"template", "t"}, {field, value}}.dump()),
            400,
            std::string(field) + " value, if provided, must be a non-empty string of at most 255 bytes"
        );
    }
    // null is not given, as for the other optional fields.
    Create(h, Json{{"userGroup", "users"}, {"template", "t"}, {"targetRegion", nullptr}});
}

TEST_CASE(
    "POST /deployments keeps perProviderMaxRetries (1 to 10, read leniently) and refuses others naming the range",
    "[api][deployments][errors]"
) {
    HandlerHarness h;
    const std::string id = Create(h, Json{{"userGroup", "users"}, {"template", "t"}, {"perProviderMaxRetries", "3"}});
    const auto stored = h.stores.deployments.Get(id);
    REQUIRE(stored);
    REQUIRE(stored->has_value());
    CHECK((*stored)->options.per_provider_max_retries == 3);
    const std::string plain = Create(h, Json{{"userGroup", "users"}, {"template", "t"}});
    CHECK_FALSE(h.stores.deployments.Get(plain).value().value().options.per_provider_max_retries);
    for (const Json& value : {Json(0), Json(11), Json(-1)}) {
        INFO(value.dump());
        CheckError(
            h.Call(
                "POST",
                "/deployments",
                Json{{"userGroup", "users"}, {"template", "t"}, {"perProviderMaxRetries", value}}.dump()
            ),
            400,
            "perProviderMaxRetries value, if provided, must be at least 1 and at most 10"
        );
    }
    CheckError(
        h.Call(
            "POST",
            "/deployments",
            Json{{"userGroup", "users"}, {"template", "t"}, {"perProviderMaxRetries", "abc"}}.dump()
        ),
        400,
        "Field 'perProviderMaxRetries' must be an integer"
    );
}
