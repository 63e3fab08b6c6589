#pragma once

#include "util/diag_sink.hpp"
#include "yaml/load_limits.hpp"
#include "yaml/node.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace orch::tosca::yaml {

/// Why a load stopped before the end of the document (a limit or a recursive alias).
struct LoadStop {
    DiagnosticCode code;
    Mark mark;
    std::string message;
    std::string path;  ///< where in the document (`a.b[2]`), when known
};

/// Builds nodes from parse events, enforcing the limits as the events arrive. Both loaders (the
/// yaml-cpp event handler and the fast loader) feed it, so limits, alias sharing and duplicate
/// keys behave the same whichever parser read the text.
///
/// Anchors are numbered by the parser (1, 2, ...; 0 = none), as yaml-cpp does: a name defined
/// twice gets a new number, and an alias names the number current when it was read.
class TreeBuilder {
   public:
    using AnchorId = std::size_t;
    static constexpr AnchorId kNoAnchor = 0;

    /// `input_bytes` is the size of the text being read: the alias expansion budget is a multiple of it.
    TreeBuilder(Arena& arena, const LoadLimits& limits, DiagSink& sink, std::size_t input_bytes)
        : arena_(arena), limits_(limits), sink_(sink), alias_budget_(limits.AliasBudget(input_bytes)) {}

    /// The first completed top-level node; null until one is complete.
    const Node* root() const { return root_; }
    /// Set once an event was refused; every later event is refused too.
    const std::optional<LoadStop>& stop() const { return stop_; }

    // Each returns false when the event is refused (see stop()).
    bool Null(Mark mark, AnchorId anchor);
    bool Scalar(Mark mark, std::string_view text, bool plain, AnchorId anchor);
    bool Alias(Mark mark, AnchorId anchor);
    bool StartCollection(NodeKind kind, Mark mark, AnchorId anchor);
    void EndCollection();

   private:
    struct Frame {
        Node* node;
        AnchorId anchor;
        const Node* pending_key = nullptr;
        std::unordered_map<std::string_view, std::size_t> index;  // only for large mappings
    };

    Node* Make(NodeKind kind, Mark mark);
    bool Count(std::uint64_t nodes, Mark mark);
    bool CountAlias(const Node& target, Mark mark);
    /// The path of the node being read (`a.b[2]`), for limit messages.
    std::string CurrentPath() const;
    void Complete(const Node* node, AnchorId anchor);
    void SetAnchor(AnchorId anchor, const Node* node);
    void Attach(const Node* node);
    void AddEntry(Frame& frame, const Node* key, const Node* value);
    bool Refuse(DiagnosticCode code, Mark mark, std::string message);

    Arena& arena_;
    const LoadLimits& limits_;
    DiagSink& sink_;
    std::vector<Frame> stack_;
    std::vector<const Node*> anchors_;  ///< by anchor number; null while the anchored node is open
    const Node* root_ = nullptr;
    std::uint64_t total_ = 0;
    const std::uint64_t alias_budget_;
    std::uint64_t alias_cost_ = 0;  ///< what alias references added so far (see LoadLimits)
    std::optional<LoadStop> stop_;
};

}  // namespace orch::tosca::yaml
