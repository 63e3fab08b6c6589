#pragma once

#include "tosca/engine.hpp"

#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>

namespace orch::tosca::tools {

/// How tosca-check prints its findings.
enum class OutputFormat {
    kHuman,   ///< `file:line:col: error: path: message`, warnings as `warning[W-CODE]:`, then a verdict line
    kGcc,     ///< `file:line:col: error: message [E-CODE]`, what gcc problem matchers parse
    kGithub,  ///< GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=...::message`
    kJson,    ///< one JSON object per template and line
};

struct OutputOptions {
    OutputFormat format = OutputFormat::kHuman;
    bool quiet = false;           ///< no verdict line for valid templates
    bool quiet_warnings = false;  ///< no warnings at all
    std::set<DiagnosticCode> suppressed_warnings;
};

/// The format named `name` ("human", "gcc", "github", "json").
std::optional<OutputFormat> OutputFormatByName(std::string_view name);

/// `text` on one line: control characters (a newline in a YAML key, say) are shown escaped, so a
/// template cannot forge further output lines, such as a workflow command GitHub would obey.
std::string OneLine(std::string_view text);

/// Prints the findings and the verdict for one template (`file` as named on the command line).
void PrintCheck(const std::string& file, const TemplateCheck& check, const OutputOptions& options, std::ostream& out);

}  // namespace orch::tosca::tools
