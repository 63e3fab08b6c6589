#include "util/diag_sink.hpp"

namespace orch::tosca {

void DiagSink::Add(
    Severity severity, DiagnosticCode code, const yaml::Node* at, const Path& path, std::string message
) {
    Diagnostic d;
    d.severity = severity;
    d.code = code;
    if (at != nullptr) {
        d.file = at->SourceName();
        d.line = at->mark.line;
        d.column = at->mark.column;
    }
    d.path = path.Str();
    d.message = std::move(message);
    Push(std::move(d));
}

void DiagSink::AddAt(
    Severity severity,
    DiagnosticCode code,
    const std::string& file,
    yaml::Mark mark,
    std::string path,
    std::string message
) {
    Push(Diagnostic{severity, code, file, mark.line, mark.column, std::move(path), std::move(message)});
}

void DiagSink::Append(const std::vector<Diagnostic>& diagnostics) {
    for (const auto& d : diagnostics) {
        Push(d);
    }
}

void DiagSink::Push(Diagnostic diagnostic) {
    if (diagnostic.severity == Severity::kError) {
        ++errors_;
    }
    if (items_.size() >= max_) {
        ++dropped_;
        return;
    }
    items_.push_back(std::move(diagnostic));
}

std::vector<Diagnostic> DiagSink::Take() {
    if (dropped_ > 0) {
        Diagnostic d;
        d.severity = errors_ > 0 ? Severity::kError : Severity::kWarning;
        d.code = DiagnosticCode::kLimitExceeded;
        d.message = std::to_string(dropped_) + " further finding(s) not shown (limit " + std::to_string(max_) + ")";
        items_.push_back(std::move(d));
        dropped_ = 0;
    }
    return std::move(items_);
}

}  // namespace orch::tosca
