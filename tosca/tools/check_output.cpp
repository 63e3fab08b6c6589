#include "check_output.hpp"

#include "tosca/report.hpp"

#include <cstdio>

namespace orch::tosca::tools {
namespace {

bool Shown(const Diagnostic& d, const OutputOptions& options) {
    if (d.severity == Severity::kError) {
        return true;
    }
    return !options.quiet_warnings && options.suppressed_warnings.count(d.code) == 0;
}

bool ImportUnavailable(const TemplateCheck& check) {
    for (const auto& d : check.diagnostics) {
        if (d.severity == Severity::kError && IsImportUnavailable(d.code)) {
            return true;
        }
    }
    return false;
}

/// GitHub's escaping for workflow command data; properties also escape ':' and ','.
std::string GithubEscape(std::string_view text, bool property) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '%':
                out += "%25";
                break;
            case '\r':
                out += "%0D";
                break;
            case '\n':
                out += "%0A";
                break;
            case ':':
                out += property ? "%3A" : ":";
                break;
            case ',':
                out += property ? "%2C" : ",";
                break;
            default:
                out += c;
        }
    }
    return OneLine(out);
}

std::string PathAndMessage(const Diagnostic& d) {
    return (d.path.empty() ? "" : d.path + ": ") + d.message;
}

void PrintGcc(const Diagnostic& d, std::ostream& out) {
    out << OneLine(d.file);
    if (d.line > 0) {
        out << ":" << d.line << ":" << d.column;
    }
    out << ": " << SeverityName(d.severity) << ": " << OneLine(PathAndMessage(d)) << " [" << DiagnosticLabel(d)
        << "]\n";
}

void PrintGithub(const Diagnostic& d, std::ostream& out) {
    out << "::" << SeverityName(d.severity) << " file=" << GithubEscape(d.file, true);
    if (d.line > 0) {
        out << ",line=" << d.line << ",col=" << d.column;
    }
    out << ",title=" << GithubEscape("tosca-check " + DiagnosticLabel(d), true)
        << "::" << GithubEscape(PathAndMessage(d), false) << "\n";
}

std::string Verdict(const std::string& file, const TemplateCheck& check, std::size_t shown, std::size_t hidden) {
    std::string warned = shown > 0 ? ", " + std::to_string(shown) + " warning(s)" : "";
    warned += hidden > 0 ? ", " + std::to_string(hidden) + " warning(s) suppressed" : "";
    const std::string name = OneLine(file);
    if (check.valid() && check.spec) {
        return name + ": valid (" + std::string(DeploymentKindName(check.spec->kind)) + ", " +
               std::to_string(check.spec->nodes.size()) + " node(s)" + warned + ")";
    }
    if (check.valid()) {
        return name + ": valid (types only" + warned + ")";
    }
    const std::string errors = std::to_string(CountErrors(check.diagnostics)) + " error(s)" + warned;
    return ImportUnavailable(check) ? name + ": not checked, an import is unavailable (" + errors + ")"
                                    : name + ": invalid (" + errors + ")";
}

}  // namespace

std::optional<OutputFormat> OutputFormatByName(std::string_view name) {
    if (name == "human") {
        return OutputFormat::kHuman;
    }
    if (name == "gcc") {
        return OutputFormat::kGcc;
    }
    if (name == "github") {
        return OutputFormat::kGithub;
    }
    if (name == "json") {
        return OutputFormat::kJson;
    }
    return std::nullopt;
}

std::string OneLine(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", u);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

void PrintCheck(const std::string& file, const TemplateCheck& check, const OutputOptions& options, std::ostream& out) {
    TemplateCheck shown;
    shown.spec = check.spec;
    std::size_t warnings = 0;
    std::size_t hidden = 0;
    for (Diagnostic d : check.diagnostics) {
        if (!Shown(d, options)) {
            ++hidden;
            continue;
        }
        warnings += d.severity == Severity::kWarning ? 1 : 0;
        if (d.file.empty()) {
            d.file = file;  // e.g. the "further findings not shown" summary
        }
        shown.diagnostics.push_back(std::move(d));
    }
    if (options.format == OutputFormat::kJson) {
        Json report = CheckReport(shown);
        report["file"] = file;
        out << report.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
        return;
    }
    for (const auto& d : shown.diagnostics) {
        switch (options.format) {
            case OutputFormat::kGcc:
                PrintGcc(d, out);
                break;
            case OutputFormat::kGithub:
                PrintGithub(d, out);
                break;
            default:
                out << OneLine(FormatDiagnostic(d)) << "\n";
        }
    }
    if (!(options.quiet && check.valid())) {
        out << Verdict(file, check, warnings, hidden) << "\n";
    }
}

}  // namespace orch::tosca::tools
