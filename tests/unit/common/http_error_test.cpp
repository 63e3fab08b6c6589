// The one error→HTTP mapping reads typed details: headers, retry hints and what is only logged
// come from ErrorDetails, never from the message text.
#include "common/http_error.hpp"

#include "common/http_client.hpp"

#include <catch2/catch.hpp>

using orch::AuthChallenge;
using orch::Error;
using orch::HttpErrorFor;

namespace {

std::string HeaderOf(const orch::HttpError& mapped, std::string_view name) {
    return orch::http::FindHeader(mapped.headers, name);
}

}  // namespace

TEST_CASE("401: a missing token gets the bare challenge, any other the invalid_token one", "[errors]") {
    const auto missing =
        HttpErrorFor(Error::Unauthenticated("no token").WithChallenge(AuthChallenge::kTokenMissing), "");
    CHECK(missing.status == 401);
    CHECK(HeaderOf(missing, "WWW-Authenticate") == "Bearer realm=\"oauth\"");
    const auto invalid = HttpErrorFor(Error::Unauthenticated("Invalid token: expired"), "");
    CHECK(
        HeaderOf(invalid, "WWW-Authenticate") ==
        "Bearer realm=\"oauth\", error=\"invalid_token\", error_description=\"Invalid token: expired\""
    );
    CHECK(invalid.message == "Invalid token: expired");
}

TEST_CASE("403: the insufficient_scope challenge names the typed scopes", "[errors]") {
    const auto mapped = HttpErrorFor(
        Error::PermissionDenied("any text").WithChallenge(AuthChallenge::kInsufficientScope, {"openid", "write\"x"}), ""
    );
    CHECK(mapped.status == 403);
    CHECK(mapped.message == "any text");
    CHECK(
        HeaderOf(mapped, "WWW-Authenticate") ==
        "Bearer realm=\"oauth\", error=\"insufficient_scope\", error_description=\"Insufficient scope for this "
        "resource\", scope=\"openid write'x\""
    );
    // A challenge on another kind is not sent (a 403 for ownership has none).
    CHECK(HeaderOf(HttpErrorFor(Error::PermissionDenied("Only the owner ..."), ""), "WWW-Authenticate").empty());
    CHECK(HeaderOf(
              HttpErrorFor(Error::NotFound("x").WithChallenge(AuthChallenge::kInsufficientScope, {"a"}), ""),
              "WWW-Authenticate"
    )
              .empty());
}

TEST_CASE("Retry-After comes from the retry hint, on 409 and 503 alike", "[errors]") {
    const auto conflict = HttpErrorFor(Error::Conflict("lost a race").WithRetryAfter(std::chrono::seconds(0)), "");
    CHECK(conflict.status == 409);
    CHECK(HeaderOf(conflict, "Retry-After") == "0");
    const auto busy = HttpErrorFor(Error::Unavailable("busy").WithRetryAfter(std::chrono::seconds(30)), "");
    CHECK(busy.status == 503);
    CHECK(HeaderOf(busy, "Retry-After") == "30");
    // The words alone no longer ask for a retry.
    CHECK(HeaderOf(HttpErrorFor(Error::Conflict("a concurrent update"), ""), "Retry-After").empty());
}

TEST_CASE("500: the client gets a generic text with the request id, the log gets the internal text", "[errors]") {
    const auto mapped = HttpErrorFor(
        Error::Internal("Database error").WithLogMessage("ERROR: relation \"deployments\" does not exist"), "req-42"
    );
    CHECK(mapped.status == 500);
    CHECK(mapped.message.find("req-42") != std::string::npos);
    CHECK(mapped.message.find("Database") == std::string::npos);
    CHECK(mapped.message.find("relation") == std::string::npos);
    CHECK(mapped.log_text == "Database error: ERROR: relation \"deployments\" does not exist");
    CHECK(mapped.headers.empty());
}

TEST_CASE("other statuses send their message and log only the internal detail", "[errors]") {
    const auto mapped = HttpErrorFor(
        Error::Unavailable("The issuer cannot be reached").WithLogMessage("connect 10.0.0.9:443: refused"), ""
    );
    CHECK(mapped.status == 503);
    CHECK(mapped.message == "The issuer cannot be reached");
    CHECK(mapped.log_text == "connect 10.0.0.9:443: refused");
    CHECK(HttpErrorFor(Error::InvalidArgument("bad"), "").log_text.empty());
}
