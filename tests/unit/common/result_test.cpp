#include <common/result.hpp>

#include <catch2/catch.hpp>

namespace {

orch::Result<int> Half(int v) {
    if (v % 2 != 0) {
        return orch::Error::InvalidArgument("odd");
    }
    return v / 2;
}

orch::Status Chain(int v) {
    ORCH_RETURN_IF_ERROR(Half(v));
    return orch::Ok();
}

}  // namespace

TEST_CASE("Result carries a value or an error", "[common][result]") {
    auto ok = Half(8);
    REQUIRE(ok.has_value());
    CHECK(*ok == 4);
    auto bad = Half(3);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == orch::ErrorCode::kInvalidArgument);
    CHECK(bad.error().message == "odd");
    CHECK(bad.value_or(7) == 7);
}

TEST_CASE("ORCH_RETURN_IF_ERROR propagates the first error", "[common][result]") {
    CHECK(Chain(4).has_value());
    auto status = Chain(5);
    REQUIRE_FALSE(status);
    CHECK(status.error().message == "odd");
}

TEST_CASE("every error code maps to one HTTP status with a reason phrase", "[common][error]") {
    using orch::ErrorCode;
    CHECK(orch::HttpStatusFor(ErrorCode::kInvalidArgument) == 400);
    CHECK(orch::HttpStatusFor(ErrorCode::kUnauthenticated) == 401);
    CHECK(orch::HttpStatusFor(ErrorCode::kPermissionDenied) == 403);
    CHECK(orch::HttpStatusFor(ErrorCode::kNotFound) == 404);
    CHECK(orch::HttpStatusFor(ErrorCode::kMethodNotAllowed) == 405);
    CHECK(orch::HttpStatusFor(ErrorCode::kConflict) == 409);
    CHECK(orch::HttpStatusFor(ErrorCode::kPayloadTooLarge) == 413);
    CHECK(orch::HttpStatusFor(ErrorCode::kUnsupportedMediaType) == 415);
    CHECK(orch::HttpStatusFor(ErrorCode::kUnavailable) == 503);
    CHECK(orch::HttpStatusFor(ErrorCode::kInternal) == 500);
    CHECK(orch::HttpReasonPhrase(404) == "Not Found");
    CHECK(orch::HttpReasonPhrase(413) == "Payload Too Large");
}
