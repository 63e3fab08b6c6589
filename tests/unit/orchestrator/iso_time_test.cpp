// expiresAt's text (domain/iso_time): the forms a client may send, what each means in UTC, and
// that anything else, however long or odd, is refused without a backtracking matcher.
#include <orchestrator/domain/iso_time.hpp>

#include <catch2/catch.hpp>

namespace {

using orch::domain::FormatIsoTime;
using orch::domain::ParseIsoTime;

std::string Round(const std::string& text) {
    const auto parsed = ParseIsoTime(text);
    return parsed ? FormatIsoTime(*parsed) : std::string("refused");
}

}  // namespace

TEST_CASE("expiresAt accepts ISO-8601 times with a zone and shows them in UTC", "[leases]") {
    CHECK(Round("2030-01-31T12:00:00Z") == "2030-01-31T12:00:00Z");
    CHECK(Round("2030-01-31T12:00Z") == "2030-01-31T12:00:00Z");
    CHECK(Round("2030-01-31T12:00:59.999Z") == "2030-01-31T12:00:59Z");
    CHECK(Round("2030-01-31T13:00:00+01:00") == "2030-01-31T12:00:00Z");
    CHECK(Round("2030-01-31T00:30-0130") == "2030-01-31T02:00:00Z");
    CHECK(Round("2030-03-01T00:00:00+02:00") == "2030-02-28T22:00:00Z");
    CHECK(Round("2028-02-29T10:00:00Z") == "2028-02-29T10:00:00Z");  // leap year
}

TEST_CASE("expiresAt refuses malformed, zoneless, impossible and oversized times", "[leases]") {
    for (const std::string bad :
         {"",
          "tomorrow",
          "2030-01-31",
          "2030-01-31T12:00:00",
          "2030-01-31 12:00:00Z",
          "2030-02-30T10:00:00Z",
          "2029-02-29T10:00:00Z",
          "2030-13-01T10:00:00Z",
          "2030-01-31T24:00:00Z",
          "2030-01-31T12:60:00Z",
          "2030-01-31T12:00:61Z",
          "2030-01-31T12:00:00.Z",
          "2030-01-31T12:00:00+25:00",
          "1969-12-31T23:59:59Z",
          "2030-01-31T12:00:00Zjunk",
          "+2030-01-31T12:00:00Z",
          "２０３０-01-31T12:00:00Z"}) {
        INFO(bad);
        CHECK(Round(bad) == "refused");
    }
    CHECK(Round("2030-01-31T12:00:00." + std::string(100, '9') + "Z") == "refused");  // over 64 bytes
    CHECK(Round(std::string(1 << 20, '1')) == "refused");
}
