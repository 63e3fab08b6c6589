#include "tosca/scalar_unit.hpp"

#include <catch2/catch.hpp>

namespace orch::tosca {
namespace {

double Base(std::string_view text, ScalarKind kind) {
    auto parsed = ParseScalarUnit(text, kind);
    INFO(text);
    REQUIRE(parsed.has_value());
    return parsed->base;
}

std::string ErrorOf(std::string_view text, ScalarKind kind, bool require_space = false) {
    auto parsed = ParseScalarUnit(text, kind, require_space);
    REQUIRE_FALSE(parsed.has_value());
    return parsed.error().message;
}

TEST_CASE("scalar-unit.size: every unit, decimal and binary", "[tosca][scalar]") {
    CHECK(Base("1 B", ScalarKind::kSize) == 1);
    CHECK(Base("1 kB", ScalarKind::kSize) == 1e3);
    CHECK(Base("1 KiB", ScalarKind::kSize) == 1024);
    CHECK(Base("1 MB", ScalarKind::kSize) == 1e6);
    CHECK(Base("1 MiB", ScalarKind::kSize) == 1048576);
    CHECK(Base("1 GB", ScalarKind::kSize) == 1e9);
    CHECK(Base("1 GiB", ScalarKind::kSize) == 1073741824.0);
    CHECK(Base("1 TB", ScalarKind::kSize) == 1e12);
    CHECK(Base("1 TiB", ScalarKind::kSize) == 1099511627776.0);
    CHECK(Base("1.5 GB", ScalarKind::kSize) == 1.5e9);
    CHECK(Base("  4096 MB ", ScalarKind::kSize) == 4096e6);
}

TEST_CASE("scalar-unit.size: units in any case, with or without space, canonical spelling kept", "[tosca][scalar]") {
    CHECK(Base("2 GIB", ScalarKind::kSize) == 2.0 * 1073741824.0);
    CHECK(Base("512 Mb", ScalarKind::kSize) == 512e6);  // TOSCA units are case-insensitive: Mb is MB
    CHECK(Base("10GB", ScalarKind::kSize) == 10e9);
    CHECK(Base("10\tGB", ScalarKind::kSize) == 10e9);
    CHECK(ParseScalarUnit("2 gib", ScalarKind::kSize)->unit == "GiB");
    CHECK(ParseScalarUnit("3 kb", ScalarKind::kSize)->unit == "kB");
    CHECK(ParseScalarUnit("2.5e3 MB", ScalarKind::kSize)->base == 2.5e9);
}

TEST_CASE("scalar-unit.time, frequency and bitrate units", "[tosca][scalar]") {
    CHECK(Base("1 d", ScalarKind::kTime) == 86400);
    CHECK(Base("2 h", ScalarKind::kTime) == 7200);
    CHECK(Base("3 m", ScalarKind::kTime) == 180);
    CHECK(Base("4 s", ScalarKind::kTime) == 4);
    CHECK(Base("5 ms", ScalarKind::kTime) == Approx(5e-3));
    CHECK(Base("6 us", ScalarKind::kTime) == Approx(6e-6));
    CHECK(Base("7 ns", ScalarKind::kTime) == Approx(7e-9));
    CHECK(Base("10 S", ScalarKind::kTime) == 10);
    CHECK(Base("1 Hz", ScalarKind::kFrequency) == 1);
    CHECK(Base("2 kHz", ScalarKind::kFrequency) == 2e3);
    CHECK(Base("3 MHz", ScalarKind::kFrequency) == 3e6);
    CHECK(Base("0.1 GHz", ScalarKind::kFrequency) == Approx(1e8));
    CHECK(Base("2.4 ghz", ScalarKind::kFrequency) == Approx(2.4e9));
    CHECK(Base("1 bps", ScalarKind::kBitrate) == 1);
    CHECK(Base("1 Kbps", ScalarKind::kBitrate) == 1e3);
    CHECK(Base("1 Kibps", ScalarKind::kBitrate) == 1024);
    CHECK(Base("1 Mbps", ScalarKind::kBitrate) == 1e6);
    CHECK(Base("1 Mibps", ScalarKind::kBitrate) == 1048576);
    CHECK(Base("1 Gbps", ScalarKind::kBitrate) == 1e9);
    CHECK(Base("1 Gibps", ScalarKind::kBitrate) == 1073741824.0);
    CHECK(Base("1 Tbps", ScalarKind::kBitrate) == 1e12);
    CHECK(Base("1 Tibps", ScalarKind::kBitrate) == 1099511627776.0);
    CHECK(Base("1 Bps", ScalarKind::kBitrate) == 8);
    CHECK(Base("1 MBps", ScalarKind::kBitrate) == 8e6);
    CHECK(Base("1 GiBps", ScalarKind::kBitrate) == 8.0 * 1073741824.0);
}

TEST_CASE("scalar units: missing unit, unknown unit, ambiguous case, missing number", "[tosca][scalar]") {
    CHECK(ErrorOf("10", ScalarKind::kSize).find("the unit is missing") != std::string::npos);
    CHECK(
        ErrorOf("10 XB", ScalarKind::kSize).find("unknown unit \"XB\" (valid units: B, kB, KiB") != std::string::npos
    );
    CHECK(ErrorOf("GB", ScalarKind::kSize).find("expected a number followed by a unit") != std::string::npos);
    CHECK(ErrorOf("", ScalarKind::kTime).find("expected a number") != std::string::npos);
    CHECK(ErrorOf("1 kbps", ScalarKind::kBitrate).find("ambiguous") != std::string::npos);  // Kbps or KBps?
    CHECK(ErrorOf("10GB", ScalarKind::kSize, true).find("put a space") != std::string::npos);
    CHECK(ErrorOf("1 GB x", ScalarKind::kSize).find("unknown unit") != std::string::npos);
}

TEST_CASE("size conversion to whole units rounds up and never understates", "[tosca][scalar]") {
    CHECK(SizeInUnits(*ParseScalarUnit("1 GB", ScalarKind::kSize), 1e6) == 1000u);
    CHECK(SizeInUnits(*ParseScalarUnit("1 GiB", ScalarKind::kSize), 1e6) == 1074u);
    CHECK(SizeInUnits(*ParseScalarUnit("4096 MB", ScalarKind::kSize), 1e6) == 4096u);
    CHECK(SizeInUnits(*ParseScalarUnit("1 B", ScalarKind::kSize), 1e6) == 1u);
    CHECK(SizeInUnits(*ParseScalarUnit("0 MB", ScalarKind::kSize), 1e6) == 0u);
    CHECK_FALSE(SizeInUnits(*ParseScalarUnit("-1 MB", ScalarKind::kSize), 1e6).has_value());
    CHECK(ScalarKindFromTypeName("scalar-unit.bitrate") == ScalarKind::kBitrate);
    CHECK_FALSE(ScalarKindFromTypeName("scalar-unit").has_value());
}

}  // namespace
}  // namespace orch::tosca
