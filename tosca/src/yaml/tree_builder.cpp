#include "yaml/tree_builder.hpp"

#include <utility>

namespace orch::tosca::yaml {
namespace {

std::string Where(const Node& node) {
    return std::to_string(node.mark.line) + ":" + std::to_string(node.mark.column);
}

// Below this many entries a linear scan finds duplicates faster than a hash index.
constexpr std::size_t kIndexFrom = 16;

}  // namespace

bool TreeBuilder::Null(Mark mark, AnchorId anchor) {
    Node* node = Make(NodeKind::kNull, mark);
    if (node == nullptr) {
        return false;
    }
    Complete(node, anchor);
    return true;
}

bool TreeBuilder::Scalar(Mark mark, std::string_view text, bool plain, AnchorId anchor) {
    Node* node = Make(NodeKind::kScalar, mark);
    if (node == nullptr) {
        return false;
    }
    node->text.assign(text);
    node->plain = plain;
    node->bytes = text.size();
    Complete(node, anchor);
    return true;
}

bool TreeBuilder::Alias(Mark mark, AnchorId anchor) {
    if (stop_) {
        return false;
    }
    if (anchor >= anchors_.size() || anchors_[anchor] == nullptr) {
        return Refuse(DiagnosticCode::kYamlSyntax, mark, "alias refers to a node that contains it (recursive alias)");
    }
    const Node* target = anchors_[anchor];
    if (!CountAlias(*target, mark) || !Count(target->size, mark)) {
        return false;
    }
    Attach(target);
    return true;
}

bool TreeBuilder::StartCollection(NodeKind kind, Mark mark, AnchorId anchor) {
    Node* node = Make(kind, mark);
    if (node == nullptr) {
        return false;
    }
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
        return Refuse(
            DiagnosticCode::kLimitExceeded,
            node->mark,
            "the document nests deeper than " + std::to_string(limits_.max_depth) + " levels"
        );
    }
    if (anchor != kNoAnchor) {
        SetAnchor(anchor, nullptr);  // open: an alias to it now would be recursive
    }
    stack_.push_back(Frame{node, anchor, nullptr, {}});
    return true;
}

void TreeBuilder::EndCollection() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (frame.pending_key != nullptr) {
        // Parsers deliver a value (null) before the mapping ends; this only guards against one that does not.
        frame.node->entries.push_back({frame.pending_key, arena_.Null(frame.pending_key->mark)});
    }
    Complete(frame.node, frame.anchor);
}

Node* TreeBuilder::Make(NodeKind kind, Mark mark) {
    if (stop_ || !Count(1, mark)) {
        return nullptr;
    }
    return arena_.New(kind, mark);
}

bool TreeBuilder::Count(std::uint64_t nodes, Mark mark) {
    total_ += nodes;
    if (total_ <= limits_.max_nodes) {
        return true;
    }
    return Refuse(
        DiagnosticCode::kLimitExceeded,
        mark,
        "the document has more than " + std::to_string(limits_.max_nodes) +
            " YAML nodes (aliases counted as what they expand to); simplify it or raise the limit"
    );
}

bool TreeBuilder::CountAlias(const Node& target, Mark mark) {
    // No overflow: a target's counts were bounded when it was read, and the sum stops at the budget.
    alias_cost_ += target.bytes + LoadLimits::kAliasNodeWeight * target.size;
    if (alias_cost_ <= alias_budget_) {
        return true;
    }
    Refuse(
        DiagnosticCode::kLimitExceeded,
        mark,
        "aliases expand the document by more than " + std::to_string(alias_budget_) + " bytes (" +
            std::to_string(limits_.max_alias_expansion) +
            " times its size, or of 64 KiB if larger); each alias counts the text and nodes of what it refers to"
    );
    stop_->path = CurrentPath();
    return false;
}

std::string TreeBuilder::CurrentPath() const {
    std::string out;
    for (const Frame& frame : stack_) {
        if (frame.node->kind == NodeKind::kSequence) {
            out += '[' + std::to_string(frame.node->items.size()) + ']';
        } else if (frame.pending_key != nullptr) {
            if (!out.empty()) {
                out += '.';
            }
            out += frame.pending_key->text;
        }
    }
    return out;
}

bool TreeBuilder::Refuse(DiagnosticCode code, Mark mark, std::string message) {
    stop_ = LoadStop{code, mark, std::move(message), ""};
    return false;
}

void TreeBuilder::Complete(const Node* node, AnchorId anchor) {
    if (anchor != kNoAnchor) {
        SetAnchor(anchor, node);
    }
    Attach(node);
}

void TreeBuilder::SetAnchor(AnchorId anchor, const Node* node) {
    if (anchor >= anchors_.size()) {
        anchors_.resize(anchor + 1, nullptr);
    }
    anchors_[anchor] = node;
}

void TreeBuilder::Attach(const Node* node) {
    if (stack_.empty()) {
        if (root_ == nullptr) {
            root_ = node;
        }
        return;
    }
    Frame& top = stack_.back();
    top.node->size += node->size;
    top.node->bytes += node->bytes;
    if (top.node->kind == NodeKind::kSequence) {
        top.node->items.push_back(node);
        return;
    }
    if (top.pending_key == nullptr) {
        top.pending_key = node;
        return;
    }
    const Node* key = top.pending_key;
    top.pending_key = nullptr;
    AddEntry(top, key, node);
}

void TreeBuilder::AddEntry(Frame& frame, const Node* key, const Node* value) {
    if (key->kind != NodeKind::kScalar) {
        sink_.AddAt(
            Severity::kError,
            DiagnosticCode::kYamlSyntax,
            arena_.source_name(),
            key->mark,
            "",
            key->kind == NodeKind::kNull ? "a mapping key is empty" : "a mapping key is a collection; keys must be text"
        );
        return;
    }
    auto& entries = frame.node->entries;
    std::size_t existing = entries.size();
    if (entries.size() < kIndexFrom) {
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (entries[i].key->text == key->text) {
                existing = i;
                break;
            }
        }
    } else {
        if (frame.index.empty()) {
            for (std::size_t i = 0; i < entries.size(); ++i) {
                frame.index.emplace(entries[i].key->text, i);
            }
        }
        if (const auto it = frame.index.find(key->text); it != frame.index.end()) {
            existing = it->second;
        }
    }
    if (existing == entries.size()) {
        if (!frame.index.empty() || entries.size() >= kIndexFrom) {
            frame.index.emplace(key->text, entries.size());
        }
        entries.push_back({key, value});
        return;
    }
    sink_.AddAt(
        Severity::kWarning,
        DiagnosticCode::kDuplicateKey,
        arena_.source_name(),
        key->mark,
        "",
        "duplicate key '" + key->text + "' (first at " + Where(*entries[existing].key) +
            "); the last value is used, as the original orchestrator does"
    );
    // The index keys view the old key's text, which stays alive in the arena.
    entries[existing] = {key, value};
}

}  // namespace orch::tosca::yaml
