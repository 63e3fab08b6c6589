#pragma once

#include "common/result.hpp"

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orch {

/// A regular expression matched in time linear in the input (a Pike VM over a compiled NFA), so a
/// hostile pattern or value cannot stall the server as backtracking engines (std::regex) can:
/// matching costs at most program size x input length steps, and both are bounded (RegexLimits).
/// Every user-supplied pattern (TOSCA `pattern` constraints, schedules' fileExpression) and every
/// check of user text against a fixed pattern goes through it; std::regex is not used on user input. Supports the
/// common ECMAScript/POSIX subset: literals,
/// `.`, classes `[a-z0-9_]` / `[^...]`, escapes `\d \w \s \D \W \S` and escaped punctuation,
/// groups `( )` / `(?: )`, `|`, `* + ?`, `{n}`, `{n,}`, `{n,m}` (lazy `?` suffixes accepted),
/// and `^` / `$` at the ends. Back-references and look-around are rejected with an error.
/// Matching is over bytes; the whole value must match (as both TOSCA parsers do).
/// What one pattern may cost. The defaults are the TOSCA engine's; callers that match many patterns
/// per request (file notifications) ask for smaller programs.
struct RegexLimits {
    std::size_t max_pattern_bytes = 1000;
    std::size_t max_program = 20'000;  ///< NFA instructions once repetitions are expanded
};

class Regex {
   public:
    static Result<Regex> Compile(std::string_view pattern, RegexLimits limits = {});

    bool FullMatch(std::string_view text) const;
    const std::string& pattern() const { return pattern_; }

    struct Inst {
        enum Op : std::uint8_t { kByte, kAny, kClass, kSplit, kJump, kMatch, kBegin, kEnd } op = kMatch;
        std::uint8_t byte = 0;
        std::uint32_t x = 0;  ///< class index, or first target
        std::uint32_t y = 0;  ///< second target (split)
    };

   private:
    std::string pattern_;
    std::vector<Inst> program_;
    std::vector<std::bitset<256>> classes_;

    friend class RegexCompiler;
};

}  // namespace orch
