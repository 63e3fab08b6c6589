#include "yaml/tree_diff.hpp"

namespace orch::tosca::yaml {
namespace {

std::string Where(const Node& node) {
    return std::to_string(node.mark.line) + ":" + std::to_string(node.mark.column);
}

std::string KindName(NodeKind kind) {
    switch (kind) {
        case NodeKind::kNull:
            return "null";
        case NodeKind::kScalar:
            return "scalar";
        case NodeKind::kSequence:
            return "sequence";
        case NodeKind::kMapping:
            return "mapping";
    }
    return "?";
}

std::string NodeDifference(const Node* a, const Node* b, const std::string& path);

std::string ShallowDifference(const Node& a, const Node& b, const std::string& path) {
    if (a.kind != b.kind) {
        return path + ": " + KindName(a.kind) + " at " + Where(a) + " vs " + KindName(b.kind) + " at " + Where(b);
    }
    if (a.mark.line != b.mark.line || a.mark.column != b.mark.column) {
        return path + ": at " + Where(a) + " vs " + Where(b);
    }
    if (a.text != b.text || a.plain != b.plain) {
        return path + ": text '" + a.text + "'" + (a.plain ? " (plain)" : "") + " vs '" + b.text + "'" +
               (b.plain ? " (plain)" : "");
    }
    if (a.bytes != b.bytes) {
        return path + ": subtree bytes " + std::to_string(a.bytes) + " vs " + std::to_string(b.bytes);
    }
    if (a.size != b.size || a.items.size() != b.items.size() || a.entries.size() != b.entries.size()) {
        return path + ": subtree sizes " + std::to_string(a.size) + "/" + std::to_string(a.items.size()) + "/" +
               std::to_string(a.entries.size()) + " vs " + std::to_string(b.size) + "/" +
               std::to_string(b.items.size()) + "/" + std::to_string(b.entries.size());
    }
    return "";
}

std::string NodeDifference(const Node* a, const Node* b, const std::string& path) {
    if (a == nullptr || b == nullptr) {
        return a == b ? ""
                      : path + ": " + (a == nullptr ? "no node" : "a node") + " vs " +
                            (b == nullptr ? "no node" : "a node");
    }
    if (std::string d = ShallowDifference(*a, *b, path); !d.empty()) {
        return d;
    }
    for (std::size_t i = 0; i < a->items.size(); ++i) {
        if (std::string d = NodeDifference(a->items[i], b->items[i], path + "[" + std::to_string(i) + "]");
            !d.empty()) {
            return d;
        }
    }
    for (std::size_t i = 0; i < a->entries.size(); ++i) {
        const Entry& x = a->entries[i];
        const Entry& y = b->entries[i];
        const std::string at = path + "." + x.key->text;
        if (std::string d = NodeDifference(x.key, y.key, at + "(key)"); !d.empty()) {
            return d;
        }
        if (std::string d = NodeDifference(x.value, y.value, at); !d.empty()) {
            return d;
        }
    }
    return "";
}

std::string Render(const Diagnostic& d) {
    return std::to_string(static_cast<int>(d.severity)) + "/" + std::to_string(static_cast<int>(d.code)) + " " +
           d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.path + " " + d.message;
}

}  // namespace

std::string FirstDifference(const LoadedText& expected, const LoadedText& actual) {
    if (std::string d = NodeDifference(expected.root, actual.root, "$"); !d.empty()) {
        return d;
    }
    const auto& a = expected.diagnostics;
    const auto& b = actual.diagnostics;
    for (std::size_t i = 0; i < a.size() || i < b.size(); ++i) {
        const std::string x = i < a.size() ? Render(a[i]) : "(none)";
        const std::string y = i < b.size() ? Render(b[i]) : "(none)";
        if (x != y) {
            return "finding " + std::to_string(i) + ": " + x + " vs " + y;
        }
    }
    return "";
}

}  // namespace orch::tosca::yaml
