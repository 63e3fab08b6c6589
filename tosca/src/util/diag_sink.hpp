#pragma once

#include "tosca/diagnostic.hpp"
#include "util/path.hpp"
#include "yaml/node.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace orch::tosca {

/// Collects diagnostics during one check, bounded: past `max` findings one summary line is
/// added and the rest are counted but dropped, so a hostile template cannot grow the answer.
class DiagSink {
   public:
    explicit DiagSink(std::size_t max = 500) : max_(max) {}

    void Add(Severity severity, DiagnosticCode code, const yaml::Node* at, const Path& path, std::string message);
    void AddAt(
        Severity severity,
        DiagnosticCode code,
        const std::string& file,
        yaml::Mark mark,
        std::string path,
        std::string message
    );

    void Error(DiagnosticCode code, const yaml::Node* at, const Path& path, std::string message) {
        Add(Severity::kError, code, at, path, std::move(message));
    }
    void Warning(DiagnosticCode code, const yaml::Node* at, const Path& path, std::string message) {
        Add(Severity::kWarning, code, at, path, std::move(message));
    }
    /// An error in strict mode, a warning in compatibility mode.
    void StrictError(bool strict, DiagnosticCode code, const yaml::Node* at, const Path& path, std::string message) {
        Add(strict ? Severity::kError : Severity::kWarning, code, at, path, std::move(message));
    }

    /// Appends already-built diagnostics (e.g. those of a cached import library).
    void Append(const std::vector<Diagnostic>& diagnostics);

    std::size_t error_count() const { return errors_; }
    std::vector<Diagnostic> Take();

   private:
    void Push(Diagnostic diagnostic);

    std::size_t max_;
    std::size_t errors_ = 0;
    std::size_t dropped_ = 0;
    std::vector<Diagnostic> items_;
};

}  // namespace orch::tosca
