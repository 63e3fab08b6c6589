#pragma once

#include "yaml/node.hpp"

#include <cstddef>
#include <string_view>

namespace orch::tosca::yaml {

/// A position in the text being read by the fast loader. Columns are bytes from the start of the
/// line (as yaml-cpp counts them); lines and columns are 0-based here and 1-based in marks.
///
/// The fast loader first makes sure the text has no NUL byte and no '\r' outside "\r\n", so
/// Peek() returns '\0' only at the end and every line break is "\n" or "\r\n".
class Cursor {
   public:
    explicit Cursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()), line_start_(p_) {}

    bool AtEnd() const { return p_ == end_; }
    char Peek() const { return p_ < end_ ? *p_ : '\0'; }
    char PeekAt(std::size_t ahead) const { return ahead < Remaining() ? p_[ahead] : '\0'; }
    std::size_t Remaining() const { return static_cast<std::size_t>(end_ - p_); }
    const char* Here() const { return p_; }

    int Line() const { return line_; }
    int Column() const { return static_cast<int>(p_ - line_start_); }
    Mark MarkHere() const { return {line_ + 1, Column() + 1}; }

    bool AtBreak() const { return p_ < end_ && (*p_ == '\n' || *p_ == '\r'); }
    /// Moves over the characters of the current line (never over a line break).
    void Advance(std::size_t n = 1) { p_ += n; }
    void EatBreak() {
        p_ += *p_ == '\r' ? 2 : 1;
        ++line_;
        line_start_ = p_;
    }
    /// Skips the bytes of a byte order mark without counting them as columns (as yaml-cpp does).
    void SkipAtLineStart(std::size_t n) {
        p_ += n;
        line_start_ = p_;
    }

    /// Saved and restored when a look-ahead does not pan out.
    struct State {
        const char* p;
        const char* line_start;
        int line;
    };
    State Save() const { return {p_, line_start_, line_}; }
    void Restore(const State& state) {
        p_ = state.p;
        line_start_ = state.line_start;
        line_ = state.line;
    }

   private:
    const char* p_;
    const char* end_;
    const char* line_start_;
    int line_ = 0;
};

inline bool IsBlank(char c) {
    return c == ' ' || c == '\t';
}

/// Blank, line break or the end of the text ('\0' from Peek).
inline bool IsBlankOrBreak(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

}  // namespace orch::tosca::yaml
