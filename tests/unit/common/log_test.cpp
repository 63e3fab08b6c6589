#include <common/json.hpp>
#include <common/log.hpp>

#include <catch2/catch.hpp>

#include <vector>

TEST_CASE("log lines are JSON with context and fields", "[common][log]") {
    std::vector<std::string> lines;
    orch::log::SetSink([&](std::string_view line) { lines.emplace_back(line); });
    orch::log::SetLevel(orch::log::Level::kInfo);
    {
        orch::log::ScopedContext ctx("req-1", "dep-2");
        ORCH_LOG_INFO("hello \"world\"", {{"n", 3}, {"ok", true}, {"s", "x"}});
        ORCH_LOG_DEBUG("hidden");
    }
    ORCH_LOG_WARN("after");
    orch::log::ResetSink();
    REQUIRE(lines.size() == 2);
    const auto first = orch::Json::parse(lines[0]);
    CHECK(first["msg"] == "hello \"world\"");
    CHECK(first["level"] == "info");
    CHECK(first["request_id"] == "req-1");
    CHECK(first["deployment_id"] == "dep-2");
    CHECK(first["n"] == 3);
    CHECK(first["ok"] == true);
    CHECK(first["time"].get<std::string>().size() == 24);
    const auto second = orch::Json::parse(lines[1]);
    CHECK_FALSE(second.contains("request_id"));
}
