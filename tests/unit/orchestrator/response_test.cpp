#include <common/json.hpp>
#include <orchestrator/server/response.hpp>

#include <catch2/catch.hpp>

using orch::server::Response;

TEST_CASE("error responses have the contract body", "[orchestrator][response]") {
    const Response r = Response::Error(orch::Error::NotFound("The deployment <abc> doesn't exist"));
    CHECK(r.status == 404);
    CHECK(r.content_type == "application/json;charset=UTF-8");
    const auto body = orch::Json::parse(r.body);
    CHECK(body == orch::Json{{"code", 404}, {"title", "Not Found"}, {"message", "The deployment <abc> doesn't exist"}});
}

TEST_CASE("error messages with quotes and control characters stay valid JSON", "[orchestrator][response]") {
    const Response r = Response::ErrorWithStatus(400, "line 1\nbad \"value\" \x01");
    const auto body = orch::Json::parse(r.body);
    CHECK(body["message"] == "line 1\nbad \"value\" \x01");
    CHECK(body["title"] == "Bad Request");
}

TEST_CASE("void successes have an empty body and no content type", "[orchestrator][response]") {
    const Response r = Response::Empty(204);
    CHECK(r.body.empty());
    CHECK(r.content_type.empty());
}

TEST_CASE("JSON responses replace invalid UTF-8 instead of failing", "[orchestrator][response]") {
    const Response r = Response::Json(200, orch::Json{{"k", std::string("bad\xff")}});
    CHECK(orch::Json::parse(r.body)["k"].is_string());
}
