#pragma once

#include "yaml/fast_cursor.hpp"
#include "yaml/tree_builder.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch::tosca::yaml {

/// A hand-written reader for the block-style YAML that TOSCA templates are written in, feeding
/// the same TreeBuilder events, with the same marks, as yaml-cpp's parser would.
///
/// Every method returns false as soon as the text uses something outside the supported subset
/// (tags, complex keys, several documents, tabs as indentation, multi-line quoted scalars, ...),
/// is malformed, or the builder refuses an event (a limit): the caller then lets yaml-cpp read
/// the whole text, so a document is never half-read by one and finished by the other, and every
/// syntax error and limit message comes from one place.
///
/// The methods are split by concept: fast_parser.cpp (document and block collections),
/// fast_flow.cpp (flow collections), fast_scalar.cpp (plain and quoted scalars, anchors),
/// block_scalar.cpp (literal and folded scalars).
class FastParser {
   public:
    FastParser(std::string_view text, TreeBuilder& builder) : cur_(text), builder_(builder) {}

    /// Reads the whole document; false when the fast loader must not be used for this text.
    bool Parse();

   private:
    using AnchorId = TreeBuilder::AnchorId;

    // yaml-cpp refuses implicit keys longer than 1024 characters; stay clear of the exact edge.
    static constexpr std::ptrdiff_t kMaxImplicitKey = 1000;

    /// What precedes a node: its mark (the anchor's when there is one) and its anchor.
    struct Props {
        Mark mark;
        AnchorId anchor = TreeBuilder::kNoAnchor;
    };

    /// Where a block node starts: the column of the enclosing block collection (-1 at the root;
    /// it bounds plain scalar continuation lines and block scalar indentation), whether that
    /// collection is a mapping, whether the node follows "key:", "- " or an anchor on its line,
    /// and whether a block collection may start here.
    struct Context {
        int parent_column;
        bool parent_is_map;
        bool after_indicator;
        bool collections_allowed;
    };

    /// How the first line of a plain scalar ended.
    enum class PlainEnd { kBreak, kEnd, kComment, kColon, kFlowIndicator };

    // Document and block structure (fast_parser.cpp). Block parsers return with the cursor at
    // the next token.
    bool NextToken();
    /// Skips spaces, comments and line breaks; false at a tab (yaml-cpp's rules differ there) or,
    /// with `marker_ends`, at a document marker after a break (inside a flow collection).
    bool SkipToToken(bool marker_ends = false);
    bool AtDocumentMarker() const;
    bool AtBlockEntry() const;
    bool ParseBlockNode(const Context& context, Props props);
    bool ParseNextLineNode(int parent_column, bool parent_is_map, Props props, bool anchored);
    bool ParseBlockMapping(int column, Props props);
    bool ParseBlockSequence(int column, Props props);
    bool ParseMapValue(int map_column);
    bool ScanImplicitKey(bool in_flow, std::string_view& text, bool& plain);
    bool ParseImplicitKey(bool in_flow);
    bool ParseInlineScalarOrKey(const Context& context, Props props);
    bool FinishLine();
    Mark EndMark(int collection_column, bool is_sequence) const;
    bool Enter();
    void Leave() { --depth_; }

    // Flow collections (fast_flow.cpp). Flow parsers return right after the node.
    bool ParseFlowNode(Props props);
    bool ParseFlowSequence(Props props);
    bool ParseFlowMapping(Props props);
    bool ParseFlowSequenceEntry();
    bool ParseFlowPair();
    bool SkipFlowSpace() { return SkipToToken(/*marker_ends=*/true); }

    // Scalars and anchors (fast_scalar.cpp).
    bool ScanPlainLine(bool in_flow, std::string_view& text, PlainEnd& end);
    bool ReadPlainContinuation(int parent_column, std::string_view& text);
    bool ScanQuoted(std::string_view& text);
    bool ScanDoubleQuoted(std::string_view& text);
    bool ScanSingleQuoted(std::string_view& text);
    bool AppendEscape();
    bool EmitScalar(Props props, std::string_view text, bool plain);
    bool ReadAnchorName(std::string_view& name);
    bool ParseAnchor(Props& props);
    bool ParseAlias();

    // Block scalars (block_scalar.cpp).
    bool ParseBlockScalar(int parent_column, Props props);

    Cursor cur_;
    TreeBuilder& builder_;
    std::vector<std::pair<std::string_view, AnchorId>> anchors_;  ///< latest definition last
    AnchorId next_anchor_ = 1;
    int depth_ = 0;
    std::string scratch_;  ///< the text of a scalar that is not a plain slice of the input
};

/// True when `c` may start a plain scalar (YAML 1.2 ns-plain-first as yaml-cpp reads it).
bool CanStartPlain(char c, char next, bool in_flow);

/// The texts yaml-cpp reads as null when written plain.
bool IsNullText(std::string_view text);

}  // namespace orch::tosca::yaml
