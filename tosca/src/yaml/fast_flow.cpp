// The fast loader's flow collections: "[a, b]", "{k: v}" and "[a, k: v]" (a one-pair mapping
// inside a sequence, as INDIGO templates write "concat: [..., get_attribute: [...]]"), possibly
// over several lines and nested. Entries that yaml-cpp reads in its own ways (empty entries,
// keys without ':', "?" keys, multi-line plain scalars) are left to it.
#include "yaml/fast_parser.hpp"

namespace orch::tosca::yaml {
bool FastParser::ParseFlowNode(Props props) {
    const char c = cur_.Peek();
    switch (c) {
        case '&': {
            if (props.anchor != TreeBuilder::kNoAnchor || !ParseAnchor(props) || !SkipFlowSpace()) {
                return false;
            }
            const char next = cur_.Peek();
            // An anchored empty node ("&a ,") or an anchored alias is left to yaml-cpp.
            return next != ',' && next != ']' && next != '}' && next != '*' && next != '\0' && ParseFlowNode(props);
        }
        case '*':
            return props.anchor == TreeBuilder::kNoAnchor && ParseAlias();
        case '[':
            return ParseFlowSequence(props);
        case '{':
            return ParseFlowMapping(props);
        case '"':
        case '\'': {
            std::string_view text;
            return ScanQuoted(text) && EmitScalar(props, text, false);
        }
        default: {
            std::string_view text;
            PlainEnd end = PlainEnd::kEnd;
            if (!CanStartPlain(c, cur_.PeekAt(1), true) || !ScanPlainLine(true, text, end) || end == PlainEnd::kEnd) {
                return false;
            }
            return EmitScalar(props, text, true);
        }
    }
}

bool FastParser::ParseFlowSequence(Props props) {
    if (!Enter() || !builder_.StartCollection(NodeKind::kSequence, props.mark, props.anchor)) {
        return false;
    }
    cur_.Advance();  // '['
    for (;;) {
        if (!SkipFlowSpace()) {
            return false;
        }
        if (cur_.Peek() == ']') {
            break;
        }
        if (!ParseFlowSequenceEntry() || !SkipFlowSpace()) {
            return false;
        }
        const char c = cur_.Peek();
        if (c == ',') {
            cur_.Advance();
            continue;
        }
        if (c != ']') {
            return false;
        }
        break;
    }
    cur_.Advance();  // ']'
    builder_.EndCollection();
    Leave();
    return true;
}

bool FastParser::ParseFlowSequenceEntry() {
    const char c = cur_.Peek();
    if (c == '"' || c == '\'' || CanStartPlain(c, cur_.PeekAt(1), true)) {
        const Cursor::State start = cur_.Save();
        std::string_view text;
        bool plain = true;
        const bool is_key = ScanImplicitKey(true, text, plain);
        cur_.Restore(start);
        if (is_key) {
            return ParseFlowPair();
        }
    }
    return ParseFlowNode(Props{cur_.MarkHere()});
}

bool FastParser::ParseFlowPair() {
    // yaml-cpp reads "[a, k: v]" as a sequence holding a one-entry mapping marked at its key.
    if (!Enter() || !builder_.StartCollection(NodeKind::kMapping, cur_.MarkHere(), TreeBuilder::kNoAnchor) ||
        !ParseImplicitKey(true) || !SkipFlowSpace()) {
        return false;
    }
    const char c = cur_.Peek();
    const bool parsed = c == ',' || c == ']' ? builder_.Null(cur_.MarkHere(), TreeBuilder::kNoAnchor)
                                             : ParseFlowNode(Props{cur_.MarkHere()});
    if (!parsed) {
        return false;
    }
    builder_.EndCollection();
    Leave();
    return true;
}

bool FastParser::ParseFlowMapping(Props props) {
    if (!Enter() || !builder_.StartCollection(NodeKind::kMapping, props.mark, props.anchor)) {
        return false;
    }
    cur_.Advance();  // '{'
    for (;;) {
        if (!SkipFlowSpace()) {
            return false;
        }
        if (cur_.Peek() == '}') {
            break;
        }
        if (!ParseImplicitKey(true) || !SkipFlowSpace()) {
            return false;
        }
        char c = cur_.Peek();
        // "{k: }": the null value is marked where the next token starts, as yaml-cpp does.
        const bool parsed = c == ',' || c == '}' ? builder_.Null(cur_.MarkHere(), TreeBuilder::kNoAnchor)
                                                 : ParseFlowNode(Props{cur_.MarkHere()});
        if (!parsed || !SkipFlowSpace()) {
            return false;
        }
        c = cur_.Peek();
        if (c == ',') {
            cur_.Advance();
            continue;
        }
        if (c != '}') {
            return false;
        }
        break;
    }
    cur_.Advance();  // '}'
    builder_.EndCollection();
    Leave();
    return true;
}

}  // namespace orch::tosca::yaml
