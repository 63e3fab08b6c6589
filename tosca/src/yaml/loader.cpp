#include "yaml/loader.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <istream>
#include <stdexcept>
#include <streambuf>
#include <unordered_map>

namespace orch::tosca::yaml {
namespace {

/// Reads a string_view without copying it into a std::istringstream.
class ViewBuffer : public std::streambuf {
   public:
    explicit ViewBuffer(std::string_view text) {
        char* begin = const_cast<char*>(text.data());  // NOLINT: the get area is never written
        setg(begin, begin, begin + text.size());
    }
};

/// Thrown from the event handler to stop parsing; carries the diagnostic to report.
struct StopParsing {
    DiagnosticCode code;
    Mark mark;
    std::string message;
};

Mark ToMark(const YAML::Mark& mark) {
    if (mark.is_null()) {
        return {};
    }
    return {mark.line + 1, mark.column + 1};
}

std::string Where(const Node& node) {
    return std::to_string(node.mark.line) + ":" + std::to_string(node.mark.column);
}

/// Builds nodes from parser events, enforcing the limits as the events arrive.
class Builder : public YAML::EventHandler {
   public:
    Builder(Arena& arena, const LoadLimits& limits, DiagSink& sink) : arena_(arena), limits_(limits), sink_(sink) {}

    const Node* root() const { return root_; }

    void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        Node* node = Make(NodeKind::kNull, mark);
        Complete(node, anchor);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const auto it = anchors_.find(anchor);
        if (it == anchors_.end() || it->second == nullptr) {
            throw StopParsing{
                DiagnosticCode::kYamlSyntax, ToMark(mark), "alias refers to a node that contains it (recursive alias)"};
        }
        Count(it->second->size, ToMark(mark));
        Attach(it->second);
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& value)
        override {
        Node* node = Make(NodeKind::kScalar, mark);
        node->text = value;
        // yaml-cpp tags untagged plain scalars "?"; quoted and block scalars "!".
        node->plain = tag == "?" || (!tag.empty() && tag != "!" && tag != "tag:yaml.org,2002:str");
        Complete(node, anchor);
    }

    void OnSequenceStart(
        const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor, YAML::EmitterStyle::value /*style*/
    ) override {
        Open(Make(NodeKind::kSequence, mark), anchor);
    }
    void OnSequenceEnd() override { Close(); }

    void OnMapStart(
        const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor, YAML::EmitterStyle::value /*style*/
    ) override {
        Open(Make(NodeKind::kMapping, mark), anchor);
    }
    void OnMapEnd() override { Close(); }

   private:
    struct Frame {
        Node* node;
        YAML::anchor_t anchor;
        const Node* pending_key = nullptr;
        std::unordered_map<std::string_view, std::size_t> index;  // only for large mappings
    };

    Node* Make(NodeKind kind, const YAML::Mark& mark) {
        Count(1, ToMark(mark));
        return arena_.New(kind, ToMark(mark));
    }

    void Count(std::uint64_t nodes, Mark mark) {
        total_ += nodes;
        if (total_ > limits_.max_nodes) {
            throw StopParsing{
                DiagnosticCode::kLimitExceeded,
                mark,
                "the document has more than " + std::to_string(limits_.max_nodes) +
                    " YAML nodes (aliases counted as what they expand to); simplify it or raise the limit"};
        }
    }

    void Open(Node* node, YAML::anchor_t anchor) {
        if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
            throw StopParsing{
                DiagnosticCode::kLimitExceeded,
                node->mark,
                "the document nests deeper than " + std::to_string(limits_.max_depth) + " levels"};
        }
        if (anchor != YAML::NullAnchor) {
            anchors_[anchor] = nullptr;  // open: an alias to it now would be recursive
        }
        stack_.push_back(Frame{node, anchor, nullptr, {}});
    }

    void Close() {
        Frame frame = std::move(stack_.back());
        stack_.pop_back();
        if (frame.pending_key != nullptr) {
            // yaml-cpp always delivers a value (null) before the mapping ends.
            frame.node->entries.push_back({frame.pending_key, arena_.Null(frame.pending_key->mark)});
        }
        Complete(frame.node, frame.anchor);
    }

    void Complete(const Node* node, YAML::anchor_t anchor) {
        if (anchor != YAML::NullAnchor) {
            anchors_[anchor] = node;
        }
        Attach(node);
    }

    void Attach(const Node* node) {
        if (stack_.empty()) {
            if (root_ == nullptr) {
                root_ = node;
            }
            return;
        }
        Frame& top = stack_.back();
        top.node->size += node->size;
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

    void AddEntry(Frame& frame, const Node* key, const Node* value) {
        if (key->kind != NodeKind::kScalar) {
            sink_.AddAt(
                Severity::kError,
                DiagnosticCode::kYamlSyntax,
                arena_.source_name(),
                key->mark,
                "",
                key->kind == NodeKind::kNull ? "a mapping key is empty"
                                             : "a mapping key is a collection; keys must be text"
            );
            return;
        }
        auto& entries = frame.node->entries;
        std::size_t existing = entries.size();
        if (entries.size() < 16) {
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
            if (!frame.index.empty() || entries.size() >= 16) {
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

    Arena& arena_;
    const LoadLimits& limits_;
    DiagSink& sink_;
    std::vector<Frame> stack_;
    std::unordered_map<YAML::anchor_t, const Node*> anchors_;
    const Node* root_ = nullptr;
    std::uint64_t total_ = 0;
};

/// Stops at the start of a second document without parsing it.
class SecondDocumentProbe : public YAML::EventHandler {
   public:
    void OnDocumentStart(const YAML::Mark& mark) override {
        throw StopParsing{DiagnosticCode::kYamlSyntax, ToMark(mark), ""};
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

std::string CleanYamlMessage(std::string message) {
    // yaml-cpp prefixes "yaml-cpp: error at line L, column C: "; we report the position ourselves.
    if (const auto pos = message.find(": ", message.find("column"));
        message.rfind("yaml-cpp:", 0) == 0 && pos != std::string::npos) {
        message = message.substr(pos + 2);
    }
    return message;
}

Mark MarkOf(const YAML::Exception& e) {
    return ToMark(e.mark);
}

}  // namespace

std::size_t FindInvalidUtf8(std::string_view text) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = bytes[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (i + len > n) {
            return i;
        }
        for (std::size_t k = 1; k < len; ++k) {
            if ((bytes[i + k] & 0xC0) != 0x80) {
                return i;
            }
            cp = (cp << 6) | (bytes[i + k] & 0x3F);
        }
        const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
        if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return i;
        }
        i += len;
    }
    return std::string_view::npos;
}

Document LoadYaml(std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink) {
    Document doc{std::make_shared<Arena>(std::move(source_name)), nullptr};
    const std::string& name = doc.arena->source_name();
    if (text.size() > limits.max_bytes) {
        sink.AddAt(
            Severity::kError,
            DiagnosticCode::kLimitExceeded,
            name,
            {},
            "",
            "the document is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                std::to_string(limits.max_bytes)
        );
        return doc;
    }
    if (const std::size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
        sink.AddAt(
            Severity::kError,
            DiagnosticCode::kYamlSyntax,
            name,
            {},
            "",
            "the document is not valid UTF-8 (byte offset " + std::to_string(bad) + ")"
        );
        return doc;
    }
    ViewBuffer buffer(text);
    std::istream in(&buffer);
    Builder builder(*doc.arena, limits, sink);
    try {
        YAML::Parser parser(in);
        if (!parser.HandleNextDocument(builder) || builder.root() == nullptr) {
            sink.AddAt(Severity::kError, DiagnosticCode::kYamlSyntax, name, {}, "", "the document is empty");
            return doc;
        }
        SecondDocumentProbe probe;
        try {
            parser.HandleNextDocument(probe);
        } catch (const StopParsing& stop) {
            sink.AddAt(
                Severity::kError,
                DiagnosticCode::kYamlSyntax,
                name,
                stop.mark,
                "",
                "a second YAML document ('---') follows; a template is one document"
            );
            return doc;
        }
    } catch (const StopParsing& stop) {
        sink.AddAt(Severity::kError, stop.code, name, stop.mark, "", stop.message);
        return doc;
    } catch (const YAML::Exception& e) {
        sink.AddAt(
            Severity::kError,
            DiagnosticCode::kYamlSyntax,
            name,
            MarkOf(e),
            "",
            "YAML syntax error: " + CleanYamlMessage(e.what())
        );
        return doc;
    } catch (const std::exception& e) {
        sink.AddAt(Severity::kError, DiagnosticCode::kYamlSyntax, name, {}, "", std::string("YAML error: ") + e.what());
        return doc;
    }
    doc.root = builder.root();
    return doc;
}

}  // namespace orch::tosca::yaml
