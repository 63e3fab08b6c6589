#include "yaml/fast_loader.hpp"

#include "yaml/fast_parser.hpp"
#include "yaml/tree_builder.hpp"

#include <memory>

namespace orch::tosca::yaml {
namespace {

// Duplicate-key warnings held back until the whole text is read; past this many the text is
// left to yaml-cpp, so a hostile document cannot make the fast loader hold unbounded findings.
constexpr std::size_t kMaxHeldFindings = 1000;

/// False for bytes yaml-cpp treats specially: control characters (its stream ends at 0x04) and
/// a '\r' that is not part of "\r\n".
bool HasOnlyOrdinaryBytes(std::string_view text) {
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != 0x7F) {
            continue;
        }
        if (c == '\n' || c == '\t' || (c == '\r' && i + 1 < n && text[i + 1] == '\n')) {
            continue;
        }
        return false;
    }
    return true;
}

}  // namespace

std::optional<Document> FastLoadYaml(
    std::string_view text, const std::string& source_name, const LoadLimits& limits, DiagSink& sink
) {
    if (!HasOnlyOrdinaryBytes(text)) {
        return std::nullopt;
    }
    Document doc{std::make_shared<Arena>(source_name), nullptr};
    DiagSink held(kMaxHeldFindings);
    TreeBuilder builder(*doc.arena, limits, held, text.size());
    if (!FastParser(text, builder).Parse()) {
        return std::nullopt;
    }
    std::vector<Diagnostic> findings = held.Take();
    if (findings.size() > kMaxHeldFindings) {
        return std::nullopt;  // Take() added its "not shown" line: some were dropped
    }
    sink.Append(findings);
    doc.root = builder.root();
    return doc;
}

}  // namespace orch::tosca::yaml
