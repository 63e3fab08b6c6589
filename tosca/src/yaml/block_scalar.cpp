// The fast loader's literal ("|") and folded (">") scalars: header indicators, indentation,
// line folding and chomping, with yaml-cpp's results (which differ from the YAML text in a few
// corner cases of folding, e.g. around more-indented lines; the differential tests pin them).
#include "yaml/fast_parser.hpp"

#include <algorithm>

namespace orch::tosca::yaml {
namespace {

enum class Chomp { kClip, kStrip, kKeep };

struct Header {
    bool folded = false;
    Chomp chomp = Chomp::kClip;
    int indent = 0;  ///< explicit indentation indicator, 0 when absent
};

/// One line inside the scalar: its text past the indentation (empty for an empty line) and
/// whether a line break ends it (only the last line of the text can lack one).
struct Line {
    std::string_view text;
    bool has_break = true;
};

Chomp ChompOf(char c) {
    return c == '-' ? Chomp::kStrip : Chomp::kKeep;
}

/// Joins the lines of the scalar as yaml-cpp does. Literal: every break is kept. Folded: a
/// single break between two lines that are neither empty nor more indented becomes a space;
/// other breaks are kept, and a run of empty lines keeps one '\n' each (plus the break before
/// them when more-indented text or the start of the scalar is involved).
class LineJoiner {
   public:
    LineJoiner(std::string& out, bool folded) : out_(out), folded_(folded) {}

    /// The break from the current line into `next` (null when the scalar ends there).
    void Break(const Line* next, bool text_seen) {
        if (!folded_) {
            if (!opening_) {
                out_ += '\n';
            }
            opening_ = false;
            return;
        }
        const bool next_empty = next != nullptr && next->text.empty();
        const bool next_more = next != nullptr && !next->text.empty() && IsBlank(next->text.front());
        if (pending_ == 0 && next_empty) {
            pending_started_more_ = more_;
        }
        if (!opening_) {
            if (!empty_ && !next_empty && !more_ && !next_more && next != nullptr) {
                out_ += ' ';
            } else if (next_empty) {
                ++pending_;
            } else {
                out_ += '\n';
            }
            if (!next_empty && pending_ > 0) {
                out_.append(pending_ - 1, '\n');
                if (pending_started_more_ || next_more || !text_seen) {
                    out_ += '\n';
                }
                pending_ = 0;
            }
        }
        opening_ = false;
        empty_ = next_empty;
        more_ = next_more;
    }

   private:
    std::string& out_;
    bool folded_;
    bool opening_ = true;  ///< the break that ends the header line adds nothing
    bool empty_ = false;
    bool more_ = false;
    std::size_t pending_ = 0;
    bool pending_started_more_ = false;
};

void ApplyChomp(std::string& text, Chomp chomp) {
    if (chomp == Chomp::kKeep) {
        return;
    }
    const std::size_t last = text.find_last_not_of('\n');
    if (last == std::string::npos) {
        text.clear();
    } else if (chomp == Chomp::kStrip) {
        text.erase(last + 1);
    } else if (last + 1 < text.size()) {
        text.erase(last + 2);
    }
}

bool IsDigit(char c) {
    return c >= '0' && c <= '9';
}

/// Reads "|" or ">", the chomping and indentation indicators in either order, and the rest of
/// the line (blanks and a comment). False for anything yaml-cpp would refuse.
bool ReadHeader(Cursor& cur, Header& header) {
    header.folded = cur.Peek() == '>';
    cur.Advance();
    bool chomp_read = false;
    for (int i = 0; i < 2; ++i) {
        const char c = cur.Peek();
        if ((c == '+' || c == '-') && !chomp_read) {
            header.chomp = ChompOf(c);
            chomp_read = true;
        } else if (IsDigit(c) && header.indent == 0) {
            if (c == '0') {
                return false;  // an indentation indicator of 0 is an error
            }
            header.indent = c - '0';
        } else {
            break;
        }
        cur.Advance();
    }
    while (cur.Peek() == ' ') {
        cur.Advance();
    }
    if (cur.Peek() == '#') {
        while (!cur.AtEnd() && !cur.AtBreak()) {
            cur.Advance();
        }
    }
    return cur.AtEnd() || cur.AtBreak();
}

/// The indentation of an auto-detected scalar: that of its first line with text (at least
/// `min_indent`; a tab after the spaces is text). Leading empty lines with more spaces than
/// that, or a tab in the indentation, are left to yaml-cpp. The cursor is not moved.
bool DetectIndent(Cursor cur, int min_indent, int& indent) {
    int widest_empty = 0;
    for (;;) {
        int spaces = 0;
        while (cur.Peek() == ' ') {
            cur.Advance();
            ++spaces;
        }
        if (cur.AtBreak()) {
            widest_empty = std::max(widest_empty, spaces);
            cur.EatBreak();
            continue;
        }
        if (cur.AtEnd() || spaces < min_indent) {
            if ((cur.AtEnd() && spaces > 0) || cur.Peek() == '\t') {
                return false;
            }
            indent = std::max(min_indent, widest_empty);  // no text: the scalar is its empty lines
            return true;
        }
        if (widest_empty > spaces) {
            return false;
        }
        indent = spaces;
        return true;
    }
}

/// Reads the next line of the scalar at `indent`; false in `inside` when the line ends it.
bool ReadLine(Cursor& cur, int indent, Line& line, bool& inside) {
    int spaces = 0;
    while (spaces < indent && cur.Peek() == ' ') {
        cur.Advance();
        ++spaces;
    }
    inside = true;
    if (spaces < indent) {
        if (cur.AtBreak()) {
            line = Line{{}, true};
            return true;
        }
        if (cur.Peek() == '\t') {
            return false;  // a tab in the indentation: an error for yaml-cpp
        }
        inside = false;  // less indented text, or the end of the text
        return true;
    }
    const char* start = cur.Here();
    while (!cur.AtEnd() && !cur.AtBreak()) {
        cur.Advance();
    }
    line = Line{std::string_view(start, static_cast<std::size_t>(cur.Here() - start)), cur.AtBreak()};
    // Spaces up to the end of the text, with no break: yaml-cpp's result is odd; leave it to it.
    return !(line.text.empty() && !line.has_break);
}

}  // namespace

bool FastParser::ParseBlockScalar(int parent_column, Props props) {
    Header header;
    if (!ReadHeader(cur_, header)) {
        return false;
    }
    std::string& out = scratch_;
    out.clear();
    if (cur_.AtEnd()) {
        return builder_.Scalar(props.mark, out, false, props.anchor);
    }
    cur_.EatBreak();
    int indent = parent_column + header.indent;
    if (header.indent == 0 && !DetectIndent(cur_, parent_column + 1, indent)) {
        return false;
    }
    LineJoiner joiner(out, header.folded);
    bool text_seen = false;
    for (;;) {
        const Cursor::State line_start = cur_.Save();
        Line line;
        bool inside = true;
        if (!ReadLine(cur_, indent, line, inside)) {
            return false;
        }
        joiner.Break(inside ? &line : nullptr, text_seen);
        if (!inside) {
            cur_.Restore(line_start);
            break;
        }
        out += line.text;
        text_seen = text_seen || !line.text.empty();
        if (!line.has_break) {
            break;
        }
        cur_.EatBreak();
    }
    ApplyChomp(out, header.chomp);
    return builder_.Scalar(props.mark, out, false, props.anchor) && NextToken();
}

}  // namespace orch::tosca::yaml
