// W3C traceparent: parsed strictly (anything else ignored), generated when absent, stamped on
// every log line of the thread's trace, and a new span id per outbound call.
#include <common/json.hpp>
#include <common/log.hpp>
#include <common/trace_context.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

constexpr const char* kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kParent = "00f067aa0ba902b7";

}  // namespace

TEST_CASE("traceparent: the specification's example and its flags", "[common][trace]") {
    const auto parsed = orch::trace::ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    REQUIRE(parsed);
    CHECK(parsed->trace_id == kTrace);
    CHECK(parsed->parent_id == kParent);
    CHECK(parsed->sampled);
    CHECK_FALSE(orch::trace::ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")->sampled);
    // A later version is read by its version-00 prefix, with or without fields after a '-'.
    CHECK(orch::trace::ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
    CHECK(orch::trace::ParseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds")
    );
}

TEST_CASE("traceparent: every malformed header is refused", "[common][trace][security]") {
    const std::string good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const std::vector<std::string> bad = {
        "",
        "garbage",
        good.substr(0, 54),                                         // short
        good + "-",                                                 // version 00 with more
        good + "0",                                                 //
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero parent id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
        "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // non-hex version
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // separator
        "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01",   // non-hex trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",   // non-hex parent id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",   // non-hex flags
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",  // later version, no '-'
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        std::string(100000, '0'),
    };
    for (const auto& header : bad) {
        INFO(header.substr(0, 80));
        CHECK_FALSE(orch::trace::ParseTraceparent(header));
    }
}

TEST_CASE("new ids are lowercase hex of the right length and new each time", "[common][trace]") {
    const std::string trace_id = orch::trace::NewTraceId();
    const std::string span_id = orch::trace::NewSpanId();
    CHECK(trace_id.size() == 32);
    CHECK(span_id.size() == 16);
    CHECK(trace_id != orch::trace::NewTraceId());
    const std::string header = orch::trace::FormatTraceparent(trace_id, span_id, true);
    const auto parsed = orch::trace::ParseTraceparent(header);  // what we send is what we accept
    REQUIRE(parsed);
    CHECK(parsed->trace_id == trace_id);
    CHECK(parsed->parent_id == span_id);
}

TEST_CASE("the trace id is on every log line of its scope, and outbound calls get new spans", "[common][trace]") {
    std::vector<std::string> lines;
    orch::log::SetSink([&](std::string_view line) { lines.emplace_back(line); });
    orch::log::SetLevel(orch::log::Level::kInfo);
    CHECK(orch::trace::OutboundTraceparent().empty());  // no trace, nothing to send
    {
        const orch::trace::ScopedTrace trace(kTrace, true);
        ORCH_LOG_INFO("inside");
        const auto first = orch::trace::ParseTraceparent(orch::trace::OutboundTraceparent());
        const auto second = orch::trace::ParseTraceparent(orch::trace::OutboundTraceparent());
        REQUIRE(first);
        REQUIRE(second);
        CHECK(first->trace_id == kTrace);
        CHECK(first->sampled);
        CHECK(first->parent_id != second->parent_id);
    }
    ORCH_LOG_INFO("outside");
    orch::log::ResetSink();
    REQUIRE(lines.size() == 2);
    CHECK(orch::Json::parse(lines[0])["trace_id"] == kTrace);
    CHECK_FALSE(orch::Json::parse(lines[1]).contains("trace_id"));
}
