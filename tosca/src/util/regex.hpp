#pragma once

#include "common/result.hpp"

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// A regular expression for the `pattern` constraint, matched in time linear in the input
/// (a Pike VM over a compiled NFA), so a hostile pattern or value cannot stall the server as
/// backtracking engines (std::regex) can. Supports the common ECMAScript/POSIX subset: literals,
/// `.`, classes `[a-z0-9_]` / `[^...]`, escapes `\d \w \s \D \W \S` and escaped punctuation,
/// groups `( )` / `(?: )`, `|`, `* + ?`, `{n}`, `{n,}`, `{n,m}` (lazy `?` suffixes accepted),
/// and `^` / `$` at the ends. Back-references and look-around are rejected with an error.
/// Matching is over bytes; the whole value must match (as both TOSCA parsers do).
class Regex {
   public:
    static Result<Regex> Compile(std::string_view pattern);

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

}  // namespace orch::tosca
