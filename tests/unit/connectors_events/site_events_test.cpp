#include "connectors/site_events.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using orch::connectors::KubernetesWatchChange;
using orch::connectors::LineSplitter;
using orch::connectors::MarathonEventChange;
using orch::connectors::SseEvent;
using orch::connectors::SseParser;

namespace {

std::vector<SseEvent> Events(SseParser& parser, const std::vector<std::string>& pieces) {
    std::vector<SseEvent> out;
    for (const auto& piece : pieces) {
        parser.Feed(piece, [&](const SseEvent& e) { out.push_back(e); });
    }
    return out;
}

}  // namespace

TEST_CASE("line splitter: lines across pieces, CRLF, and overlong lines dropped whole", "[site_events]") {
    LineSplitter lines(8);
    std::vector<std::string> got;
    const auto keep = [&](std::string_view line) {
        got.emplace_back(line);
    };
    lines.Feed("ab", keep);
    lines.Feed("c\r\nde", keep);
    lines.Feed("f\n0123456789", keep);  // over 8 bytes: dropped, with what follows up to its end
    lines.Feed("0123456789", keep);
    lines.Feed("xyz\nok\n", keep);
    CHECK(got == std::vector<std::string>{"abc", "def", "ok"});
    CHECK(lines.dropped() == 1);
}

TEST_CASE("line splitter: an endless line keeps no more than its bound", "[site_events]") {
    LineSplitter lines(1024);
    const std::string mebibyte(1 << 20, 'x');
    int seen = 0;
    for (int i = 0; i < 64; ++i) {  // 64 MiB without a newline
        lines.Feed(mebibyte, [&](std::string_view) { ++seen; });
    }
    lines.Feed("\nafter\n", [&](std::string_view line) {
        CHECK(line == "after");
        ++seen;
    });
    CHECK(seen == 1);
    CHECK(lines.dropped() == 1);
}

TEST_CASE("SSE parser: fields, multi-line data, comments and events split anywhere", "[site_events]") {
    SseParser parser(4096, 4096);
    const std::string text =
        ": heartbeat\n\nevent: status_update_event\nid: 7\ndata: {\"a\":\ndata: 1}\n\nevent: x\ndata:y\n\n";
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < text.size(); i += 3) {
        pieces.push_back(text.substr(i, 3));
    }
    const auto events = Events(parser, pieces);
    REQUIRE(events.size() == 2);
    CHECK(events[0].type == "status_update_event");
    CHECK(events[0].id == "7");
    CHECK(events[0].data == "{\"a\":\n1}");
    CHECK(events[1].type == "x");
    CHECK(events[1].data == "y");
}

TEST_CASE("SSE parser: an event over its bound is dropped, the next one still comes", "[site_events]") {
    SseParser parser(100, 150);
    std::string big;
    for (int i = 0; i < 10; ++i) {
        big += "data: " + std::string(50, 'z') + "\n";  // each line fits, the event does not
    }
    const auto events = Events(parser, {big, "\n", "event: small\ndata: ok\n\n"});
    REQUIRE(events.size() == 1);
    CHECK(events[0].type == "small");
    CHECK(parser.dropped() == 1);
}

TEST_CASE("Marathon events: the deployment groups a change is about", "[site_events]") {
    SseEvent status{
        "status_update_event", R"({"eventType":"status_update_event","appId":"/dep-1/web","taskId":"t"})", ""};
    CHECK(MarathonEventChange(status).resources == std::vector<std::string>{"/dep-1"});

    SseEvent success{
        "deployment_success",
        R"({"plan":{"steps":[{"actions":[{"action":"StartApplication","app":"/dep-2/a"},{"app":"/dep-2/b"}]},)"
        R"({"actions":[{"app":"/dep-3/c"}]}]}})",
        ""};
    CHECK(MarathonEventChange(success).resources == std::vector<std::string>{"/dep-2", "/dep-3"});

    // No event type line: Marathon's own eventType field says it.
    SseEvent untyped{"", R"({"eventType":"status_update_event","appId":"/dep-4"})", ""};
    CHECK(MarathonEventChange(untyped).resources == std::vector<std::string>{"/dep-4"});
    SseEvent health{"health_status_changed_event", R"({"appId":"/dep-6/web","alive":true})", ""};
    CHECK(MarathonEventChange(health).resources == std::vector<std::string>{"/dep-6"});
    SseEvent other{"api_post_event", R"({"appDefinition":{"id":"/dep-5/x"}})", ""};
    CHECK(MarathonEventChange(other).resources.empty());
}

TEST_CASE("Marathon events: hostile data names nothing and never throws", "[site_events]") {
    const std::vector<std::string> hostile = {
        "",
        "not json",
        "[1,2]",
        R"({"appId": 42})",
        R"({"appId": {"x": 1}})",
        R"({"appId": "relative/name"})",
        R"({"appId": "/"})",
        std::string(100'000, '[') + std::string(100'000, ']'),
        R"({"appId": "/ok", "eventType": ["status_update_event"]})",
    };
    for (const auto& data : hostile) {
        CAPTURE(data.substr(0, 60));
        const auto change = MarathonEventChange(SseEvent{"status_update_event", data, ""});
        const bool only_ok = change.resources.empty() || change.resources == std::vector<std::string>{"/ok"};
        CHECK(only_ok);
        CHECK_NOTHROW(MarathonEventChange(SseEvent{"deployment_success", data, ""}));
    }
    // A plan of a million actions is read up to its bound.
    std::string plan = R"({"plan":{"steps":[{"actions":[)";
    for (int i = 0; i < 1000; ++i) {
        plan += R"({"app":"/g)" + std::to_string(i) + R"(/a"},)";
    }
    plan.back() = ']';
    plan += "}]}}";
    CHECK(MarathonEventChange(SseEvent{"deployment_success", plan, ""}).resources.size() == 64);
    SseEvent wrong_steps{"deployment_success", R"({"plan":{"steps":{"actions":1}}})", ""};
    CHECK(MarathonEventChange(wrong_steps).resources.empty());
}

TEST_CASE("Kubernetes watch lines: namespace, resourceVersion, and 410 expiry", "[site_events]") {
    const auto modified = KubernetesWatchChange(
        R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"p","namespace":"orch-1","resourceVersion":"42"}}})"
    );
    REQUIRE(modified);
    CHECK(modified->resources == std::vector<std::string>{"orch-1"});
    CHECK(modified->resource_version == "42");
    CHECK_FALSE(modified->expired);

    const auto gone =
        KubernetesWatchChange(R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})");
    REQUIRE(gone);
    CHECK(gone->expired);
    CHECK(gone->resources.empty());
}

TEST_CASE("Kubernetes watch lines: hostile lines are ignored, never thrown on", "[site_events]") {
    const std::vector<std::string> hostile = {
        "",
        "{",
        "null",
        R"({"type":"ADDED"})",
        R"({"type":"ADDED","object":[]})",
        R"({"type":"ADDED","object":{"metadata":"x"}})",
        R"({"type":7,"object":{"metadata":{"namespace":7,"resourceVersion":{}}}})",
        R"({"type":"ERROR","object":{"code":"410"}})",
        std::string(50'000, '{'),
    };
    for (const auto& line : hostile) {
        CAPTURE(line.substr(0, 60));
        const auto change = KubernetesWatchChange(line);
        if (change) {
            CHECK(change->resources.empty());
            CHECK(change->resource_version.empty());
            CHECK_FALSE(change->expired);
        }
    }
    // An overlong namespace or version is not believed.
    const auto overlong = KubernetesWatchChange(
        R"({"type":"MODIFIED","object":{"metadata":{"namespace":")" + std::string(300, 'n') +
        R"(","resourceVersion":")" + std::string(100, '9') + R"("}}})"
    );
    REQUIRE(overlong);
    CHECK(overlong->resources.empty());
    CHECK(overlong->resource_version.empty());
}

TEST_CASE("site watch paths: Marathon's event bus, Kubernetes' workloads, nothing elsewhere", "[site_events]") {
    using orch::connectors::SiteWatchPaths;
    using orch::connectors::TargetKind;
    CHECK(SiteWatchPaths(TargetKind::kMarathon).size() == 1);
    CHECK(SiteWatchPaths(TargetKind::kMarathon).front().rfind("/v2/events?", 0) == 0);
    CHECK(SiteWatchPaths(TargetKind::kKubernetes).size() == 3);
    CHECK(SiteWatchPaths(TargetKind::kOpenStack).empty());
    CHECK(SiteWatchPaths(TargetKind::kSlurm).empty());
}
