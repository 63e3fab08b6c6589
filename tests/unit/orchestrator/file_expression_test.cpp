// fileExpression semantics: ECMAScript std::regex, whole "scope:name" must match (as Java's
// Matcher.matches()), invalid or oversized expressions rejected, the compiled cache bounded.
#include <orchestrator/schedule/file_expression.hpp>

#include <catch2/catch.hpp>

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
