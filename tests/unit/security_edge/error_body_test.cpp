// A 500 never carries internal text: database and library messages go to the log with the
// request id; the client gets a generic message naming that id.
#include <common/log.hpp>
#include <orchestrator/api/api_context.hpp>
#include <orchestrator/server/response.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

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

TEST_CASE("a 500's internal detail goes to the log line with the request id, not to the client", "[security][errors]") {
    std::vector<std::string> lines;
    orch::log::SetSink([&](std::string_view line) { lines.emplace_back(line); });
    {
        const orch::log::ScopedContext ctx("req-test-2", "");
        const Response res = orch::api::ErrorResponse(
            Error::Internal("Database error").WithLogMessage("ERROR: duplicate key value violates \"pk_secret\"")
        );
        CHECK(res.status == 500);
        CHECK(res.body.find("pk_secret") == std::string::npos);
        CHECK(res.body.find("Database") == std::string::npos);
        CHECK(res.body.find("req-test-2") != std::string::npos);
    }
    orch::log::ResetSink();
    const bool logged = std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
        return line.find("pk_secret") != std::string::npos && line.find("req-test-2") != std::string::npos;
    });
    CHECK(logged);
}

TEST_CASE("typed details become headers: Retry-After and WWW-Authenticate", "[security][errors]") {
    const Response conflict = orch::api::ErrorResponse(
        Error::Conflict("The request couldn't be fulfilled because of a concurrent update. Please retry later")
            .WithRetryAfter(std::chrono::seconds(0))
    );
    CHECK(conflict.status == 409);
    CHECK(orch::http::FindHeader(conflict.headers, "Retry-After") == "0");
    const Response scope =
        orch::api::ErrorResponse(Error::PermissionDenied("Insufficient scope for this resource, scope=\"a b\"")
                                     .WithChallenge(orch::AuthChallenge::kInsufficientScope, {"a", "b"}));
    CHECK(scope.status == 403);
    CHECK(orch::http::FindHeader(scope.headers, "WWW-Authenticate").find("scope=\"a b\"") != std::string::npos);
    CHECK(Json::parse(scope.body)["message"] == "Insufficient scope for this resource, scope=\"a b\"");
}

// Retry-After and WWW-Authenticate were decided by reading the message text: any 409 whose text
// said "concurrent update" was told to retry at once, and a 403 worded like a scope error got a
// challenge whatever caused it. Only the typed details decide now. Failed before the fix (the
// Retry-After check: ErrorResponse searched the text).
TEST_CASE("message text alone adds no Retry-After nor WWW-Authenticate", "[security][errors]") {
    const Response conflict =
        orch::api::ErrorResponse(Error::Conflict("Cannot update: a concurrent update is not retried here"));
    CHECK(conflict.status == 409);
    CHECK(orch::http::FindHeader(conflict.headers, "Retry-After").empty());
    const Response lookalike =
        orch::api::ErrorResponse(Error::PermissionDenied("Insufficient scope for this resource, scope=\"a b\""));
    CHECK(lookalike.status == 403);
    CHECK(orch::http::FindHeader(lookalike.headers, "WWW-Authenticate").empty());
}
