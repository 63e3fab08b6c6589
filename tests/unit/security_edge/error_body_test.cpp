// A 500 never carries internal text: database and library messages go to the log with the
// request id; the client gets a generic message naming that id.
#include <common/log.hpp>
#include <orchestrator/api/api_context.hpp>
#include <orchestrator/server/response.hpp>

#include <catch2/catch.hpp>

using orch::Error;
using orch::Json;
using orch::server::Response;

TEST_CASE("a 500 answer never carries the error's internal text", "[security][errors]") {
    const orch::log::ScopedContext ctx("req-test-1", "");
    const std::string internal =
        "Database error: ERROR:  invalid byte sequence for encoding \"UTF8\": 0x00 CONTEXT: unnamed portal parameter "
        "$3";
    for (const Response& res :
         {Response::Error(Error::Internal(internal)),
          Response::ErrorWithStatus(500, internal),
          orch::api::ErrorResponse(Error::Internal(internal))}) {
        CHECK(res.status == 500);
        CHECK(res.body.find("Database") == std::string::npos);
        CHECK(res.body.find("UTF8") == std::string::npos);
        CHECK(res.body.find("portal") == std::string::npos);
        const auto body = Json::parse(res.body);
        CHECK(body["code"] == 500);
        CHECK(body["title"] == "Internal Server Error");
        CHECK(std::string(body["message"]).find("req-test-1") != std::string::npos);
    }
    // Other statuses keep their (user-facing) messages.
    CHECK(
        Json::parse(Response::Error(Error::InvalidArgument("Field 'x' is bad")).body)["message"] == "Field 'x' is bad"
    );
    CHECK(
        Json::parse(Response::Error(Error::Unavailable("The database is unavailable; retry later")).body)["message"] ==
        "The database is unavailable; retry later"
    );
}
