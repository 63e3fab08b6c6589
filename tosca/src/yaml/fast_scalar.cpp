// The fast loader's plain and quoted scalars, anchors and aliases, read as yaml-cpp reads them:
// plain scalars end at ": ", " #" or the line end (continuation lines are folded), quoted
// scalars must close on their line (multi-line ones are left to yaml-cpp).
#include "yaml/fast_parser.hpp"

#include <cstdint>

namespace orch::tosca::yaml {
namespace {

// Past this many anchors, alias lookups (a linear scan) are left to yaml-cpp.
constexpr std::size_t kMaxAnchors = 1000;

bool IsAsciiAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsAnchorChar(char c) {
    return IsAsciiAlnum(c) || c == '_' || c == '-' || c == '.';
}

/// Characters that may not start a continuation line of a plain scalar here: yaml-cpp would
/// read most of them as text, but the cases are subtle and rare, so they go to yaml-cpp.
bool IsIndicator(char c) {
    switch (c) {
        case '-':
        case '?':
        case ':':
        case ',':
        case '[':
        case ']':
        case '{':
        case '}':
        case '#':
        case '&':
        case '*':
        case '!':
        case '|':
        case '>':
        case '\'':
        case '"':
        case '%':
        case '@':
        case '`':
            return true;
        default:
            return false;
    }
}

int HexDigit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
    if (cp <= 0x7F) {
        out += static_cast<char>(cp);
    } else if (cp <= 0x7FF) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp <= 0xFFFF) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// The text of a one-character escape ("\n", "\t", ...); empty when `c` is not one. "\N" and
/// "\_" are left to yaml-cpp: version 0.7 turns them into single bytes, not UTF-8.
std::string_view SimpleEscape(char c) {
    switch (c) {
        case '0':
            return std::string_view("\0", 1);
        case 'a':
            return "\x07";
        case 'b':
            return "\x08";
        case 't':
        case '\t':
            return "\t";
        case 'n':
            return "\n";
        case 'v':
            return "\x0B";
        case 'f':
            return "\x0C";
        case 'r':
            return "\r";
        case 'e':
            return "\x1B";
        case ' ':
            return " ";
        case '"':
            return "\"";
        case '\'':
            return "'";
        case '\\':
            return "\\";
        case '/':
            return "/";
        case 'L':
            return "\xE2\x80\xA8";
        case 'P':
            return "\xE2\x80\xA9";
        default:
            return {};
    }
}

}  // namespace

bool CanStartPlain(char c, char next, bool in_flow) {
    if (IsBlankOrBreak(c)) {
        return false;
    }
    if (c == '?' || c == ':') {
        return !in_flow && !IsBlankOrBreak(next);
    }
    if (c == '-') {
        return !IsBlankOrBreak(next);
    }
    return !IsIndicator(c);  // every other indicator starts something else
}

bool IsNullText(std::string_view text) {
    return text == "~" || text == "null" || text == "Null" || text == "NULL";
}

bool FastParser::ScanPlainLine(bool in_flow, std::string_view& text, PlainEnd& end) {
    const char* start = cur_.Here();
    const char* last = start;  // one past the last character that is not blank
    for (;; cur_.Advance()) {
        const char c = cur_.Peek();
        if (c == ' ') {
            if (cur_.PeekAt(1) == '#') {
                end = PlainEnd::kComment;
                break;
            }
            continue;
        }
        if (c == '\0' || c == '\n' || c == '\r') {
            end = c == '\0' ? PlainEnd::kEnd : PlainEnd::kBreak;
            break;
        }
        if (c == '\t') {
            return false;
        }
        if (c == ':') {
            const char next = cur_.PeekAt(1);
            if (IsBlankOrBreak(next) || (in_flow && (next == ',' || next == ']' || next == '}'))) {
                end = PlainEnd::kColon;
                break;
            }
        } else if (in_flow) {
            if (c == ',' || c == ']' || c == '}') {
                end = PlainEnd::kFlowIndicator;
                break;
            }
            if (c == '[' || c == '{' || c == '?') {
                return false;
            }
        }
        last = cur_.Here() + 1;
    }
    text = std::string_view(start, static_cast<std::size_t>(last - start));
    return true;
}

bool FastParser::ReadPlainContinuation(int parent_column, std::string_view& text) {
    // yaml-cpp continues a plain scalar on lines indented past the enclosing block collection,
    // folding single line breaks into spaces and keeping one '\n' per empty line between.
    const int threshold = parent_column + 1;
    Cursor::State last_content = cur_.Save();
    std::size_t empty_lines = 0;
    bool folded = false;
    while (cur_.AtBreak()) {
        cur_.EatBreak();
        while (cur_.Peek() == ' ') {
            cur_.Advance();
        }
        const char c = cur_.Peek();
        if (cur_.AtBreak()) {
            ++empty_lines;
            continue;
        }
        if (c == '\t') {
            return false;
        }
        if (cur_.AtEnd() || c == '#' || cur_.Column() < threshold) {
            break;
        }
        if (AtDocumentMarker() || IsIndicator(c)) {
            return false;
        }
        std::string_view line;
        PlainEnd end = PlainEnd::kEnd;
        if (!ScanPlainLine(false, line, end) || (end != PlainEnd::kBreak && end != PlainEnd::kEnd)) {
            return false;  // "key: value" or a comment on a continuation line
        }
        if (!folded) {
            scratch_.assign(text);
            folded = true;
        }
        if (empty_lines == 0) {
            scratch_ += ' ';
        } else {
            scratch_.append(empty_lines, '\n');
        }
        scratch_ += line;
        empty_lines = 0;
        last_content = cur_.Save();
    }
    cur_.Restore(last_content);
    if (folded) {
        text = scratch_;
    }
    return true;
}

bool FastParser::ScanQuoted(std::string_view& text) {
    return cur_.Peek() == '"' ? ScanDoubleQuoted(text) : ScanSingleQuoted(text);
}

bool FastParser::ScanSingleQuoted(std::string_view& text) {
    cur_.Advance();  // opening quote
    const char* start = cur_.Here();
    bool copied = false;
    for (;;) {
        const char c = cur_.Peek();
        if (c == '\0' || c == '\n' || c == '\r') {
            return false;  // continues on the next line
        }
        if (c == '\'') {
            if (cur_.PeekAt(1) != '\'') {
                break;
            }
            if (!copied) {
                scratch_.assign(start, cur_.Here());
                copied = true;
            }
            scratch_ += '\'';
            cur_.Advance(2);
            continue;
        }
        if (copied) {
            scratch_ += c;
        }
        cur_.Advance();
    }
    text = copied ? std::string_view(scratch_) : std::string_view(start, static_cast<std::size_t>(cur_.Here() - start));
    cur_.Advance();  // closing quote
    return true;
}

bool FastParser::ScanDoubleQuoted(std::string_view& text) {
    cur_.Advance();  // opening quote
    const char* start = cur_.Here();
    bool copied = false;
    for (;;) {
        const char c = cur_.Peek();
        if (c == '\0' || c == '\n' || c == '\r') {
            return false;  // continues on the next line
        }
        if (c == '"') {
            break;
        }
        if (c == '\\') {
            if (!copied) {
                scratch_.assign(start, cur_.Here());
                copied = true;
            }
            if (!AppendEscape()) {
                return false;
            }
            continue;
        }
        if (copied) {
            scratch_ += c;
        }
        cur_.Advance();
    }
    text = copied ? std::string_view(scratch_) : std::string_view(start, static_cast<std::size_t>(cur_.Here() - start));
    cur_.Advance();  // closing quote
    return true;
}

bool FastParser::AppendEscape() {
    const char kind = cur_.PeekAt(1);
    if (const std::string_view simple = SimpleEscape(kind); !simple.empty()) {
        scratch_ += simple;
        cur_.Advance(2);
        return true;
    }
    const std::size_t digits = kind == 'x' ? 2 : kind == 'u' ? 4 : kind == 'U' ? 8 : 0;
    if (digits == 0) {
        return false;  // unknown escape, or "\" at the line end: yaml-cpp's path reports or folds it
    }
    std::uint32_t cp = 0;
    for (std::size_t i = 0; i < digits; ++i) {
        const int digit = HexDigit(cur_.PeekAt(2 + i));
        if (digit < 0) {
            return false;
        }
        cp = (cp << 4) | static_cast<std::uint32_t>(digit);
    }
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
        return false;  // yaml-cpp refuses these code points
    }
    AppendUtf8(scratch_, cp);
    cur_.Advance(2 + digits);
    return true;
}

bool FastParser::EmitScalar(Props props, std::string_view text, bool plain) {
    if (plain && IsNullText(text)) {
        return builder_.Null(props.mark, props.anchor);
    }
    return builder_.Scalar(props.mark, text, plain, props.anchor);
}

bool FastParser::ReadAnchorName(std::string_view& name) {
    cur_.Advance();  // '&' or '*'
    const char* start = cur_.Here();
    while (IsAnchorChar(cur_.Peek())) {
        cur_.Advance();
    }
    name = std::string_view(start, static_cast<std::size_t>(cur_.Here() - start));
    const char next = cur_.Peek();
    return !name.empty() && (IsBlankOrBreak(next) || next == ',' || next == ']' || next == '}');
}

bool FastParser::ParseAnchor(Props& props) {
    props.mark = cur_.MarkHere();
    std::string_view name;
    if (!ReadAnchorName(name) || anchors_.size() >= kMaxAnchors) {
        return false;
    }
    props.anchor = next_anchor_++;
    anchors_.emplace_back(name, props.anchor);
    while (cur_.Peek() == ' ') {
        cur_.Advance();
    }
    return cur_.Peek() != '\t';
}

bool FastParser::ParseAlias() {
    const Mark mark = cur_.MarkHere();
    std::string_view name;
    if (!ReadAnchorName(name)) {
        return false;
    }
    for (auto it = anchors_.rbegin(); it != anchors_.rend(); ++it) {
        if (it->first == name) {
            return builder_.Alias(mark, it->second);
        }
    }
    return false;  // an unknown anchor: yaml-cpp's path reports it
}

}  // namespace orch::tosca::yaml
