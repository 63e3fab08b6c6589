#include "tosca/diagnostic.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace orch::tosca {
namespace {

bool IsError(const Diagnostic& d) {
    return d.severity == Severity::kError;
}

std::string Position(const Diagnostic& d) {
    if (d.line <= 0) {
        return "";
    }
    return std::to_string(d.line) + ":" + std::to_string(d.column);
}

constexpr std::array<std::pair<DiagnosticCode, std::string_view>, 21> kCodeNames{{
    {DiagnosticCode::kGeneral, "GENERAL"},
    {DiagnosticCode::kYamlSyntax, "YAML-SYNTAX"},
    {DiagnosticCode::kLimitExceeded, "LIMIT-EXCEEDED"},
    {DiagnosticCode::kDuplicateKey, "DUPLICATE-KEY"},
    {DiagnosticCode::kVersion, "VERSION"},
    {DiagnosticCode::kImport, "IMPORT"},
    {DiagnosticCode::kImportUnreachable, "IMPORT-UNREACHABLE"},
    {DiagnosticCode::kImportRefused, "IMPORT-REFUSED"},
    {DiagnosticCode::kUnknownType, "UNKNOWN-TYPE"},
    {DiagnosticCode::kUnknownField, "UNKNOWN-FIELD"},
    {DiagnosticCode::kInvalidValue, "INVALID-VALUE"},
    {DiagnosticCode::kMissingRequired, "MISSING-REQUIRED"},
    {DiagnosticCode::kRequirement, "REQUIREMENT"},
    {DiagnosticCode::kFunction, "FUNCTION"},
    {DiagnosticCode::kMissingInput, "MISSING-INPUT"},
    {DiagnosticCode::kInputValue, "INPUT-VALUE"},
    {DiagnosticCode::kUnknownParameter, "UNKNOWN-PARAMETER"},
    {DiagnosticCode::kDependencyLoop, "DEPENDENCY-LOOP"},
    {DiagnosticCode::kTypeRedefined, "TYPE-REDEFINED"},
    {DiagnosticCode::kImportedTopology, "IMPORTED-TOPOLOGY"},
    {DiagnosticCode::kNoTopology, "NO-TOPOLOGY"},
}};

}  // namespace

std::string_view DiagnosticCodeName(DiagnosticCode code) {
    for (const auto& [c, name] : kCodeNames) {
        if (c == code) {
            return name;
        }
    }
    return "GENERAL";
}

std::optional<DiagnosticCode> DiagnosticCodeByName(std::string_view name) {
    for (const auto& [c, n] : kCodeNames) {
        if (n == name) {
            return c;
        }
    }
    return std::nullopt;
}

const std::vector<DiagnosticCode>& AllDiagnosticCodes() {
    static const std::vector<DiagnosticCode> kAll = [] {
        std::vector<DiagnosticCode> out;
        out.reserve(kCodeNames.size());
        for (const auto& entry : kCodeNames) {
            out.push_back(entry.first);
        }
        return out;
    }();
    return kAll;
}

std::string DiagnosticLabel(const Diagnostic& d) {
    return std::string(d.severity == Severity::kError ? "E-" : "W-") + std::string(DiagnosticCodeName(d.code));
}

std::string_view SeverityName(Severity severity) {
    return severity == Severity::kError ? "error" : "warning";
}

bool HasErrors(const std::vector<Diagnostic>& diagnostics) {
    return std::any_of(diagnostics.begin(), diagnostics.end(), IsError);
}

std::size_t CountErrors(const std::vector<Diagnostic>& diagnostics) {
    return static_cast<std::size_t>(std::count_if(diagnostics.begin(), diagnostics.end(), IsError));
}

std::string FormatDiagnostic(const Diagnostic& d) {
    std::string out = d.file;
    if (const std::string pos = Position(d); !pos.empty()) {
        out += ":" + pos;
    }
    out += ": ";
    out += SeverityName(d.severity);
    if (d.severity == Severity::kWarning) {
        out += "[" + DiagnosticLabel(d) + "]";
    }
    out += ": ";
    if (!d.path.empty()) {
        out += d.path + ": ";
    }
    out += d.message;
    return out;
}

std::string FormatDiagnosticLine(const Diagnostic& d) {
    std::string out = Position(d);
    if (!out.empty()) {
        out += ": ";
    }
    if (!d.path.empty()) {
        out += d.path + ": ";
    }
    out += d.message;
    return out;
}

std::string RenderErrorMessage(const std::vector<Diagnostic>& diagnostics, std::string_view template_name) {
    std::vector<const Diagnostic*> errors;
    for (const auto& d : diagnostics) {
        if (IsError(d)) {
            errors.push_back(&d);
        }
    }
    if (errors.empty()) {
        return "";
    }
    const auto all_of_code = [&](DiagnosticCode code) {
        return std::all_of(errors.begin(), errors.end(), [&](const Diagnostic* d) { return d->code == code; });
    };
    // The original's own texts, for clients that match them.
    const bool only_parameters = std::all_of(errors.begin(), errors.end(), [](const Diagnostic* d) {
        return d->code == DiagnosticCode::kMissingInput || d->code == DiagnosticCode::kUnknownParameter;
    });
    if (only_parameters || all_of_code(DiagnosticCode::kDependencyLoop)) {
        std::string out;
        for (const Diagnostic* d : errors) {
            out += (out.empty() ? "" : "\n") + d->message;
        }
        return out;
    }
    std::string out = "Error parsing TOSCA template " + std::string(template_name) + ":";
    for (const Diagnostic* d : errors) {
        out += "\n" + FormatDiagnosticLine(*d);
    }
    return out;
}

Error ToError(const std::vector<Diagnostic>& diagnostics, std::string_view template_name) {
    return Error::InvalidArgument(RenderErrorMessage(diagnostics, template_name));
}

}  // namespace orch::tosca
