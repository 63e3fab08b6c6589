#include "yaml/loader.hpp"

#include "yaml/fast_loader.hpp"
#include "yaml/tree_builder.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <istream>
#include <stdexcept>
#include <streambuf>

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

/// Thrown from the event handler to stop parsing once the builder refused an event.
struct StopParsing {
    LoadStop stop;
};

Mark ToMark(const YAML::Mark& mark) {
    if (mark.is_null()) {
        return {};
    }
    return {mark.line + 1, mark.column + 1};
}

/// Forwards yaml-cpp's parser events to the TreeBuilder (yaml-cpp's anchor numbers are ours).
class EventAdapter : public YAML::EventHandler {
   public:
    explicit EventAdapter(TreeBuilder& builder) : builder_(builder) {}

    void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Check(builder_.Null(ToMark(mark), anchor)); }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        Check(builder_.Alias(ToMark(mark), anchor));
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& value)
        override {
        // yaml-cpp tags untagged plain scalars "?"; quoted and block scalars "!".
        const bool plain = tag == "?" || (!tag.empty() && tag != "!" && tag != "tag:yaml.org,2002:str");
        Check(builder_.Scalar(ToMark(mark), value, plain, anchor));
    }

    void OnSequenceStart(
        const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor, YAML::EmitterStyle::value /*style*/
    ) override {
        Check(builder_.StartCollection(NodeKind::kSequence, ToMark(mark), anchor));
    }
    void OnSequenceEnd() override { builder_.EndCollection(); }

    void OnMapStart(
        const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor, YAML::EmitterStyle::value /*style*/
    ) override {
        Check(builder_.StartCollection(NodeKind::kMapping, ToMark(mark), anchor));
    }
    void OnMapEnd() override { builder_.EndCollection(); }

   private:
    void Check(bool accepted) const {
        if (!accepted) {
            throw StopParsing{*builder_.stop()};
        }
    }

    TreeBuilder& builder_;
};

/// Stops at the start of a second document without parsing it.
class SecondDocumentProbe : public YAML::EventHandler {
   public:
    void OnDocumentStart(const YAML::Mark& mark) override {
        throw StopParsing{LoadStop{DiagnosticCode::kYamlSyntax, ToMark(mark), "", ""}};
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

namespace {

/// Size and UTF-8 checks, before either parser runs; false (with the error in `sink`) to refuse.
bool Admissible(std::string_view text, const std::string& name, const LoadLimits& limits, DiagSink& sink) {
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
        return false;
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
        return false;
    }
    return true;
}

Document LoadWithYamlCpp(std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink) {
    Document doc{std::make_shared<Arena>(std::move(source_name)), nullptr};
    const std::string& name = doc.arena->source_name();
    ViewBuffer buffer(text);
    std::istream in(&buffer);
    TreeBuilder builder(*doc.arena, limits, sink, text.size());
    EventAdapter adapter(builder);
    try {
        YAML::Parser parser(in);
        if (!parser.HandleNextDocument(adapter) || builder.root() == nullptr) {
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
                stop.stop.mark,
                "",
                "a second YAML document ('---') follows; a template is one document"
            );
            return doc;
        }
    } catch (const StopParsing& stop) {
        sink.AddAt(Severity::kError, stop.stop.code, name, stop.stop.mark, stop.stop.path, stop.stop.message);
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

}  // namespace

Document LoadYaml(std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink) {
    if (!Admissible(text, source_name, limits, sink)) {
        return Document{std::make_shared<Arena>(std::move(source_name)), nullptr};
    }
    if (auto fast = FastLoadYaml(text, source_name, limits, sink)) {
        return std::move(*fast);
    }
    return LoadWithYamlCpp(text, std::move(source_name), limits, sink);
}

std::optional<Document> LoadYamlWith(
    YamlParser parser, std::string_view text, std::string source_name, const LoadLimits& limits, DiagSink& sink
) {
    switch (parser) {
        case YamlParser::kAuto:
            return LoadYaml(text, std::move(source_name), limits, sink);
        case YamlParser::kYamlCpp:
            if (!Admissible(text, source_name, limits, sink)) {
                return Document{std::make_shared<Arena>(std::move(source_name)), nullptr};
            }
            return LoadWithYamlCpp(text, std::move(source_name), limits, sink);
        case YamlParser::kFastOnly: {
            DiagSink refused;
            if (!Admissible(text, source_name, limits, refused)) {
                return std::nullopt;
            }
            return FastLoadYaml(text, source_name, limits, sink);
        }
    }
    return std::nullopt;
}

}  // namespace orch::tosca::yaml
