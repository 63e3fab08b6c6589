// fileExpression semantics: the linear-time matcher (common/regex.hpp), whole "scope:name" must
// match (as Java's Matcher.matches()), invalid or oversized expressions rejected, the compiled
// cache bounded, and patterns that make backtracking engines run for hours answer at once.
#include <orchestrator/schedule/file_expression.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using orch::schedule::CompileFileExpression;
using orch::schedule::FileExpressionCache;

TEST_CASE("a fileExpression must match the whole scope:name", "[schedules][regex]") {
    FileExpressionCache cache;
    CHECK(cache.Matches("user\\.alice:.*\\.root", "user.alice:run1.root"));
    CHECK_FALSE(cache.Matches("user\\.alice:.*\\.root", "user.alice:run1.root.tmp"));
    CHECK_FALSE(cache.Matches("user\\.alice:.*\\.root", "xuser.alice:run1.root"));
    CHECK(cache.Matches("(user|group)\\.[a-z]+:data_\\d{3}", "group.cms:data_042"));
    CHECK_FALSE(cache.Matches("(user|group)\\.[a-z]+:data_\\d{3}", "group.cms:data_42"));
    CHECK(cache.Matches(".*", "any:thing"));
}

TEST_CASE("invalid, Java-only and oversized expressions are rejected and match nothing", "[schedules][regex]") {
    CHECK(CompileFileExpression("user:.*"));
    for (const std::string bad : {"user:(unclosed", "*a", "(?<=x)y", "[z-a]"}) {
        INFO(bad);
        const auto compiled = CompileFileExpression(bad);
        REQUIRE_FALSE(compiled);
        CHECK(compiled.error().code == orch::ErrorCode::kInvalidArgument);
        FileExpressionCache cache;
        CHECK_FALSE(cache.Matches(bad, "user:x"));
    }
    const std::string long_expression(orch::schedule::kMaxFileExpressionBytes + 1, 'a');
    CHECK_FALSE(CompileFileExpression(long_expression));
    FileExpressionCache cache;
    CHECK_FALSE(cache.Matches(".*", "s:" + std::string(orch::schedule::kMaxFileNameBytes, 'n')));
    CHECK(cache.Matches(".*", "s:" + std::string(orch::schedule::kMaxFileNameBytes - 2, 'n')));
}

TEST_CASE("the compiled-expression cache stays correct past its capacity", "[schedules][regex]") {
    FileExpressionCache cache(2);
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 5; ++i) {  // more expressions than slots: evictions on every call
            const std::string expression = "s:f" + std::to_string(i);
            CHECK(cache.Matches(expression, "s:f" + std::to_string(i)));
            CHECK_FALSE(cache.Matches(expression, "s:f" + std::to_string(i + 1)));
        }
    }
}

namespace {

// Runs `match` on a thread of its own and waits at most `limit`: a backtracking matcher would
// never return, and the test must fail rather than hang. A late thread is left behind (detached).
std::optional<bool> WithinTime(std::function<bool()> match, std::chrono::milliseconds limit) {
    auto done = std::make_shared<std::promise<bool>>();
    auto result = done->get_future();
    std::thread([done, match = std::move(match)] { done->set_value(match()); }).detach();
    if (result.wait_for(limit) != std::future_status::ready) {
        return std::nullopt;
    }
    return result.get();
}

}  // namespace

TEST_CASE("patterns that make backtracking engines run for hours answer at once", "[schedules][regex][security]") {
    // std::regex took hours on the first against a 40-byte name (the report): every way
    // of splitting the name between the nested repetitions is tried before failing on '!'.
    struct Case {
        std::string expression;
        std::string did;
        bool matches_with_bang;  // whether did + "!" matches
    };
    const std::string name = "user.alice:" + std::string(40, 'a');
    const std::string as(40, 'a');
    for (const Case& c : std::vector<Case>{
             {"(.+)+!", name, true},
             {"(.*)*!", name, true},
             {"(.*a){20}!", name, true},
             {"(a|a)+!", as, true},
             {"(a|aa)+!", as, true},
             {"((a+)+)+!", as, true},
             {"user\\.alice:(a+)+!", name, true}}) {
        INFO(c.expression);
        FileExpressionCache cache;
        const auto started = std::chrono::steady_clock::now();
        const auto matched =
            WithinTime([&cache, c] { return cache.Matches(c.expression, c.did); }, std::chrono::seconds(2));
        REQUIRE(matched.has_value());
        CHECK_FALSE(*matched);
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(500));
        CHECK(cache.Matches(c.expression, c.did + "!") == c.matches_with_bang);
    }
}

TEST_CASE("a large expression on the longest name stays in milliseconds", "[schedules][regex][security]") {
    FileExpressionCache cache;
    const std::string name(orch::schedule::kMaxFileNameBytes, 'x');
    const auto started = std::chrono::steady_clock::now();
    CHECK(cache.Matches("(.?){1000}.*", name));  // ~2,000 NFA states live on every byte
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(500));
    // Over the program bound: refused when the schedule is created, not paid per notification.
    CHECK_FALSE(CompileFileExpression("(.{100}){100}"));
    CHECK_FALSE(CompileFileExpression("(a)\\1"));  // back-references need backtracking
}
