// The fast loader's document and block structure: block mappings and sequences, the values of
// "key:" and "- ", and where yaml-cpp puts the marks of implicit nulls.
#include "yaml/fast_parser.hpp"

#include <cstring>

namespace orch::tosca::yaml {
namespace {

// Own bound on recursion, independent of LoadLimits::max_depth (which the builder enforces).
constexpr int kMaxNesting = 200;

bool StartsWith(const Cursor& cur, const char* prefix, std::size_t n) {
    return cur.Remaining() >= n && std::memcmp(cur.Here(), prefix, n) == 0;
}

}  // namespace

bool FastParser::Parse() {
    if (StartsWith(cur_, "\xEF\xBB\xBF", 3)) {
        cur_.SkipAtLineStart(3);
    }
    if (!SkipToToken()) {
        return false;
    }
    if (cur_.Column() == 0 && StartsWith(cur_, "---", 3) && IsBlankOrBreak(cur_.PeekAt(3))) {
        cur_.Advance(3);
        // "--- value" (a node on the marker's line) is left to yaml-cpp.
        if (!FinishLine()) {
            return false;
        }
    } else if (!NextToken()) {
        return false;
    }
    if (cur_.AtEnd()) {
        return false;  // empty document: yaml-cpp words the error
    }
    const Props props{cur_.MarkHere()};
    if (!ParseBlockNode(Context{-1, false, false, true}, props)) {
        return false;
    }
    return cur_.AtEnd() && builder_.root() != nullptr;
}

bool FastParser::SkipToToken(bool marker_ends) {
    for (;;) {
        const char c = cur_.Peek();
        if (c == ' ') {
            cur_.Advance();
        } else if (c == '#') {
            while (!cur_.AtEnd() && !cur_.AtBreak()) {
                cur_.Advance();
            }
        } else if (cur_.AtBreak()) {
            cur_.EatBreak();
            if (marker_ends && AtDocumentMarker()) {
                return false;
            }
        } else {
            // A tab between tokens changes yaml-cpp's notion of where a key may start.
            return c != '\t';
        }
    }
}

bool FastParser::NextToken() {
    return SkipToToken() && !AtDocumentMarker();
}

bool FastParser::AtDocumentMarker() const {
    if (cur_.Column() != 0) {
        return false;
    }
    if (cur_.Peek() == '%') {
        return true;  // a directive
    }
    return (StartsWith(cur_, "---", 3) || StartsWith(cur_, "...", 3)) && IsBlankOrBreak(cur_.PeekAt(3));
}

bool FastParser::AtBlockEntry() const {
    return cur_.Peek() == '-' && IsBlankOrBreak(cur_.PeekAt(1));
}

bool FastParser::Enter() {
    return ++depth_ <= kMaxNesting;
}

bool FastParser::FinishLine() {
    while (cur_.Peek() == ' ') {
        cur_.Advance();
    }
    const char c = cur_.Peek();
    if (c != '#' && !cur_.AtBreak() && !cur_.AtEnd()) {
        return false;
    }
    return NextToken();
}

Mark FastParser::EndMark(int collection_column, bool is_sequence) const {
    // At the end of the text yaml-cpp closes the collections still open at the position it
    // reached, or at column 0 of that line once it has reset the column (its EndStream).
    const int column = cur_.Column();
    const bool closed_here = collection_column > column || (collection_column == column && is_sequence);
    return {cur_.Line() + 1, closed_here ? column + 1 : 1};
}

bool FastParser::ParseBlockNode(const Context& context, Props props) {
    switch (cur_.Peek()) {
        case '&':
            // yaml-cpp sets up a possible key at an anchor that starts a line or follows "- ",
            // which shifts the indentation of what follows: only "key: &anchor" is read here.
            if (props.anchor != TreeBuilder::kNoAnchor || !context.parent_is_map || context.collections_allowed ||
                !context.after_indicator || !ParseAnchor(props)) {
                return false;
            }
            if (cur_.AtEnd() || cur_.AtBreak() || cur_.Peek() == '#') {
                return ParseNextLineNode(context.parent_column, true, props, true);
            }
            return ParseBlockNode(Context{context.parent_column, true, true, false}, props);
        case '*':
            return props.anchor == TreeBuilder::kNoAnchor && context.parent_column >= 0 && ParseAlias() && FinishLine();
        case '[':
        case '{':
            return ParseFlowNode(props) && FinishLine();
        case '|':
        case '>':
            return context.after_indicator && context.parent_column >= 0 &&
                   ParseBlockScalar(context.parent_column, props);
        case '-':
            if (IsBlankOrBreak(cur_.PeekAt(1))) {
                return context.collections_allowed && ParseBlockSequence(cur_.Column(), props);
            }
            break;
        default:
            break;
    }
    return ParseInlineScalarOrKey(context, props);
}

bool FastParser::ParseInlineScalarOrKey(const Context& context, Props props) {
    const Cursor::State start = cur_.Save();
    std::string_view text;
    bool plain = true;
    PlainEnd end = PlainEnd::kEnd;
    const char c = cur_.Peek();
    if (c == '"' || c == '\'') {
        if (!ScanQuoted(text)) {
            return false;
        }
        plain = false;
        while (cur_.Peek() == ' ') {
            cur_.Advance();
        }
        if (cur_.Peek() == ':' && IsBlankOrBreak(cur_.PeekAt(1))) {
            end = PlainEnd::kColon;
        }
    } else if (!CanStartPlain(c, cur_.PeekAt(1), false) || !ScanPlainLine(false, text, end)) {
        return false;
    }
    if (end == PlainEnd::kColon) {
        if (!context.collections_allowed) {
            return false;  // "a: b: c", or a key after an anchor on the same line
        }
        cur_.Restore(start);
        return ParseBlockMapping(cur_.Column(), props);
    }
    if (context.parent_column < 0) {
        return false;  // a document that is one scalar is not a template
    }
    if (plain && end == PlainEnd::kBreak && !ReadPlainContinuation(context.parent_column, text)) {
        return false;
    }
    return EmitScalar(props, text, plain) && FinishLine();
}

bool FastParser::ParseNextLineNode(int parent_column, bool parent_is_map, Props props, bool anchored) {
    if (!NextToken()) {
        return false;
    }
    if (cur_.AtEnd()) {
        if (parent_column < 0) {
            return false;
        }
        return builder_.Null(anchored ? props.mark : EndMark(parent_column, !parent_is_map), props.anchor);
    }
    const int column = cur_.Column();
    if (!anchored) {
        props.mark = cur_.MarkHere();
    }
    if (column > parent_column) {
        return ParseBlockNode(Context{parent_column, parent_is_map, false, true}, props);
    }
    if (parent_is_map && column == parent_column && AtBlockEntry()) {
        return ParseBlockSequence(column, props);  // "key:" then "- item" at the key's column
    }
    // Nothing more indented follows: the value is null, marked where the next token starts.
    return builder_.Null(props.mark, props.anchor);
}

bool FastParser::ParseBlockMapping(int column, Props props) {
    if (!Enter() || !builder_.StartCollection(NodeKind::kMapping, props.mark, props.anchor)) {
        return false;
    }
    for (;;) {
        if (!ParseImplicitKey(false) || !ParseMapValue(column)) {
            return false;
        }
        if (cur_.AtEnd()) {
            break;
        }
        const int next = cur_.Column();
        if (next < column) {
            break;
        }
        if (next > column || AtBlockEntry()) {
            return false;
        }
    }
    builder_.EndCollection();
    Leave();
    return true;
}

bool FastParser::ScanImplicitKey(bool in_flow, std::string_view& text, bool& plain) {
    const char c = cur_.Peek();
    if (c == '"' || c == '\'') {
        plain = false;
        if (!ScanQuoted(text)) {
            return false;
        }
        while (cur_.Peek() == ' ') {
            cur_.Advance();
        }
        // After a quoted key a flow context takes ':' alone, as JSON writes it.
        return cur_.Peek() == ':' && (in_flow || IsBlankOrBreak(cur_.PeekAt(1)));
    }
    plain = true;
    PlainEnd end = PlainEnd::kEnd;
    return CanStartPlain(c, cur_.PeekAt(1), in_flow) && ScanPlainLine(in_flow, text, end) && end == PlainEnd::kColon;
}

bool FastParser::ParseImplicitKey(bool in_flow) {
    const Mark mark = cur_.MarkHere();
    const char* start = cur_.Here();
    std::string_view text;
    bool plain = true;
    if (!ScanImplicitKey(in_flow, text, plain) || (plain && IsNullText(text)) ||
        cur_.Here() - start > kMaxImplicitKey) {
        return false;  // not "key:", a null key (an error yaml-cpp's path reports) or too long a key
    }
    cur_.Advance();  // ':'
    return builder_.Scalar(mark, text, plain, TreeBuilder::kNoAnchor);
}

bool FastParser::ParseMapValue(int map_column) {
    while (cur_.Peek() == ' ') {
        cur_.Advance();
    }
    if (cur_.AtEnd() || cur_.AtBreak() || cur_.Peek() == '#') {
        return ParseNextLineNode(map_column, true, Props{}, false);
    }
    return ParseBlockNode(Context{map_column, true, true, false}, Props{cur_.MarkHere()});
}

bool FastParser::ParseBlockSequence(int column, Props props) {
    if (!Enter() || !builder_.StartCollection(NodeKind::kSequence, props.mark, props.anchor)) {
        return false;
    }
    for (;;) {
        cur_.Advance();  // '-'
        while (cur_.Peek() == ' ') {
            cur_.Advance();
        }
        const bool item_on_next_line = cur_.AtEnd() || cur_.AtBreak() || cur_.Peek() == '#';
        const bool parsed = item_on_next_line
                                ? ParseNextLineNode(column, false, Props{}, false)
                                : ParseBlockNode(Context{column, false, true, true}, Props{cur_.MarkHere()});
        if (!parsed) {
            return false;
        }
        if (cur_.AtEnd()) {
            break;
        }
        const int next = cur_.Column();
        if (next == column && AtBlockEntry()) {
            continue;
        }
        if (next > column) {
            return false;
        }
        break;
    }
    builder_.EndCollection();
    Leave();
    return true;
}

}  // namespace orch::tosca::yaml
