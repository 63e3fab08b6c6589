#include "common/regex.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace orch {
namespace {

bool Match(const std::string& pattern, const std::string& text) {
    auto regex = Regex::Compile(pattern);
    INFO(pattern);
    REQUIRE(regex.has_value());
    return regex->FullMatch(text);
}

TEST_CASE("regex: literals, classes, escapes, groups, alternation, quantifiers", "[common][regex]") {
    CHECK(Match("abc", "abc"));
    CHECK_FALSE(Match("abc", "abcd"));  // the whole value must match
    CHECK(Match("a.c", "axc"));
    CHECK(Match("[a-z0-9_-]+", "my_app-2"));
    CHECK_FALSE(Match("[^0-9]+", "ab1"));
    CHECK(Match("\\d{3}-\\d{4}", "555-1234"));
    CHECK(Match("\\w+@\\w+\\.org", "user@example.org"));
    CHECK_FALSE(Match("\\w+@\\w+\\.org", "user@example_org"));
    CHECK(Match("(ab|cd)*e", "abcdabe"));
    CHECK(Match("(?:x|y)?z", "z"));
    CHECK(Match("a{2,3}", "aaa"));
    CHECK_FALSE(Match("a{2,3}", "aaaa"));
    CHECK(Match("a{2,}", "aaaaaa"));
    CHECK(Match("^v[0-9]+(\\.[0-9]+)*$", "v1.2.3"));
    CHECK(Match("\\s*x\\s*", "  x "));
    CHECK(Match("a+?b", "aab"));
}

TEST_CASE("regex: unsupported or malformed patterns are errors, not crashes", "[common][regex]") {
    CHECK_FALSE(Regex::Compile("(a").has_value());
    CHECK_FALSE(Regex::Compile("a)").has_value());
    CHECK_FALSE(Regex::Compile("[a-").has_value());
    CHECK_FALSE(Regex::Compile("*a").has_value());
    CHECK_FALSE(Regex::Compile("(?=a)").has_value());
    CHECK_FALSE(Regex::Compile("\\1").has_value());
    CHECK_FALSE(Regex::Compile("a{5,2}").has_value());
    CHECK_FALSE(Regex::Compile("(a{1000}){1000}").has_value());  // too large once expanded
    CHECK(Regex::Compile("a{1000}").has_value());
    CHECK_FALSE(Regex::Compile(std::string(2000, 'a')).has_value());
    CHECK_FALSE(Regex::Compile(std::string(60, '(') + std::string(60, ')')).has_value());
}

TEST_CASE("regex: catastrophic-backtracking patterns still answer", "[common][regex]") {
    // A backtracking engine (std::regex) needs ~2^50000 steps here and would hang this test
    // until the CTest timeout; the Pike VM is linear in the input.
    auto regex = Regex::Compile("(a+)+b");
    REQUIRE(regex.has_value());
    CHECK_FALSE(regex->FullMatch(std::string(50'000, 'a')));
    CHECK(regex->FullMatch(std::string(50'000, 'a') + "b"));
}

TEST_CASE("regex: pathological patterns cost time linear in the input", "[common][regex]") {
    // Each is exponential for a backtracking engine on a non-matching input of this length.
    const std::string as(5'000, 'a');
    for (const std::string& pattern :
         std::vector<std::string>{"(a|a)+!", "(a|aa)+!", "((a+)+)+!", "(.*)*!", "(.*a){50}!", "(a?){500}a{500}!"}) {
        INFO(pattern);
        auto regex = Regex::Compile(pattern);
        REQUIRE(regex.has_value());
        const auto started = std::chrono::steady_clock::now();
        CHECK_FALSE(regex->FullMatch(as));
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
        CHECK(regex->FullMatch(std::string(1000, 'a') + "!"));
    }
}

TEST_CASE("regex: callers bound pattern length and program size", "[common][regex]") {
    const RegexLimits small{.max_pattern_bytes = 16, .max_program = 64};
    CHECK(Regex::Compile("a{10}", small).has_value());
    const auto long_pattern = Regex::Compile(std::string(17, 'a'), small);
    REQUIRE_FALSE(long_pattern.has_value());
    CHECK(long_pattern.error().code == ErrorCode::kInvalidArgument);
    CHECK(long_pattern.error().message.find("longer than 16") != std::string::npos);
    const auto large = Regex::Compile("(a{10}){10}", small);  // 11 bytes, 100 instructions
    REQUIRE_FALSE(large.has_value());
    CHECK(large.error().message.find("too large") != std::string::npos);
}

}  // namespace
}  // namespace orch
