#include "check_command.hpp"

#include "check_output.hpp"
#include "common/build_info.hpp"
#include "common/http_client.hpp"
#include "common/json.hpp"
#include "tosca/engine.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

namespace orch::tosca::tools {
namespace {

std::string DisplayName(const std::string& path) {
    return path == "-" ? "<stdin>" : path;
}

constexpr const char* kUsage =
    "usage: tosca-check [--inputs FILE.json] [--mirror URL_PREFIX=DIR]... [--allow-host HOST]...\n"
    "                   [--max-bytes SIZE] [--strict] [--format human|gcc|github|json] [--quiet]\n"
    "                   [--quiet-warnings] [--suppress-warning W-CODE]... TEMPLATE...\n"
    "       tosca-check --version | --help\n"
    "\n"
    "Validates TOSCA templates as the orchestrator does on a create request; TEMPLATE - reads\n"
    "standard input. Imports are resolved relative to the file that imports them.\n"
    "  --inputs FILE.json   check the inputs and evaluate get_input with these parameters\n"
    "                       (without it, required inputs without a default are accepted)\n"
    "  --mirror P=DIR       read imports whose URL starts with P from DIR (repeatable;\n"
    "                       ORCHESTRATOR_TOSCA_MIRRORS=P=DIR;P2=DIR2 is also read)\n"
    "  --allow-host HOST    fetch https imports from HOST when no mirror maps them\n"
    "  --max-bytes SIZE     largest template, import or inputs file (default 2MiB; also KiB)\n"
    "  --strict             TOSCA Simple Profile rules instead of the original's leniencies\n"
    "  --format FORMAT      human (default); gcc: file:line:col: error: message [E-CODE];\n"
    "                       github: GitHub Actions annotations; json: one object per template\n"
    "  --json               the same as --format json\n"
    "  --quiet              no verdict line for valid templates\n"
    "  --quiet-warnings     print no warnings\n"
    "  --suppress-warning W-CODE   do not print warnings with this code (repeatable), e.g.\n"
    "                       W-DUPLICATE-KEY, W-REQUIREMENT; codes are shown as warning[W-CODE]\n"
    "Exit status: 0 all valid, 1 some template invalid, 2 usage error, 3 an import could not be\n"
    "read or fetched or was refused, 4 a file given on the command line is unreadable, too large\n"
    "or malformed. With several templates the largest applies.\n";

struct Options {
    std::optional<std::string> inputs_file;
    std::vector<std::string> templates;
    EngineOptions engine;
    OutputOptions output;
    bool help = false;
    bool version = false;
};

/// Reads `path` ("-" = standard input) up to `limit` bytes, in chunks: an endless or huge file
/// (/dev/zero, a pipe that never closes its end...) stops at the limit instead of exhausting memory.
Result<std::string> ReadBounded(const std::string& path, std::size_t limit) {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (path != "-") {
        file.open(path, std::ios::binary);
        if (!file) {
            return Error::NotFound("cannot read " + path);
        }
        in = &file;
    }
    std::string text;
    std::array<char, 64 * 1024> chunk{};
    while (*in) {
        in->read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        const auto got = static_cast<std::size_t>(in->gcount());
        if (text.size() + got > limit) {
            return Error::InvalidArgument(
                DisplayName(path) + " is larger than the limit of " + std::to_string(limit) + " bytes (--max-bytes)"
            );
        }
        text.append(chunk.data(), got);
    }
    if (in->bad()) {
        return Error::Unavailable("cannot read " + DisplayName(path));
    }
    return text;
}

/// "W-DUPLICATE-KEY" (as printed in warning[W-DUPLICATE-KEY]) to its code.
std::optional<DiagnosticCode> WarningCodeByName(const std::string& name) {
    if (name.rfind("W-", 0) != 0) {
        return std::nullopt;
    }
    return DiagnosticCodeByName(std::string_view(name).substr(2));
}

/// A size such as 2097152, 512KiB or 4MiB.
std::optional<std::size_t> ParseSize(const std::string& text) {
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || value == 0) {
        return std::nullopt;
    }
    const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    const std::size_t shift = unit.empty() ? 0 : unit == "KiB" ? 10 : unit == "MiB" ? 20 : 64;
    if (shift == 64 || value > (std::numeric_limits<std::size_t>::max() >> shift)) {
        return std::nullopt;
    }
    return value << shift;
}

/// Parses the arguments; an error message (usage included) when they are wrong.
Result<Options> ParseArgs(const std::vector<std::string>& args, const std::string& environment_mirrors) {
    Options options;
    options.engine.allow_file_imports = true;
    const auto add_mirrors = [&](const std::string& text) -> Status {
        auto mirrors = ParseMirrorMap(text);
        if (!mirrors) {
            return std::move(mirrors).error();
        }
        options.engine.mirrors.insert(options.engine.mirrors.end(), mirrors->begin(), mirrors->end());
        return Ok();
    };
    ORCH_RETURN_IF_ERROR(add_mirrors(environment_mirrors));
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        std::optional<std::string> value;
        // --name=value is the same as --name value.
        if (const std::size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg.resize(eq);
        }
        const bool takes_value = arg == "--inputs" || arg == "--mirror" || arg == "--allow-host" ||
                                 arg == "--max-bytes" || arg == "--format" || arg == "--suppress-warning";
        if (takes_value && !value) {
            if (i + 1 >= args.size()) {
                return Error::InvalidArgument(arg + " needs a value");
            }
            value = args[++i];
        } else if (!takes_value && value) {
            return Error::InvalidArgument(arg + " takes no value");
        }
        if (arg == "--help" || arg == "-h") {
            options.help = true;
        } else if (arg == "--version") {
            options.version = true;
        } else if (arg == "--json") {
            options.output.format = OutputFormat::kJson;
        } else if (arg == "--strict") {
            options.engine.mode = Mode::kStrict;
        } else if (arg == "--quiet" || arg == "-q") {
            options.output.quiet = true;
        } else if (arg == "--quiet-warnings") {
            options.output.quiet_warnings = true;
        } else if (arg == "--inputs") {
            options.inputs_file = *value;
        } else if (arg == "--mirror") {
            ORCH_RETURN_IF_ERROR(add_mirrors(*value));
        } else if (arg == "--max-bytes") {
            const auto size = ParseSize(*value);
            if (!size) {
                return Error::InvalidArgument("--max-bytes: expected a size such as 2097152 or 4MiB");
            }
            options.engine.limits.max_document_bytes = *size;
        } else if (arg == "--allow-host") {
            options.engine.allowed_hosts.push_back(*value);
        } else if (arg == "--format") {
            const auto format = OutputFormatByName(*value);
            if (!format) {
                return Error::InvalidArgument("--format: expected human, gcc, github or json");
            }
            options.output.format = *format;
        } else if (arg == "--suppress-warning") {
            const auto code = WarningCodeByName(*value);
            if (!code) {
                return Error::InvalidArgument("--suppress-warning: unknown warning code " + OneLine(*value));
            }
            options.output.suppressed_warnings.insert(*code);
        } else if (arg.size() > 1 && arg[0] == '-') {
            return Error::InvalidArgument("unknown option " + OneLine(arg));
        } else {
            options.templates.push_back(arg);
        }
    }
    if (options.templates.empty() && !options.help && !options.version) {
        return Error::InvalidArgument("no template given");
    }
    return options;
}

/// The --inputs file as a JSON object.
Result<Json> ReadInputs(const std::string& path, std::size_t limit) {
    auto text = ReadBounded(path, limit);
    if (!text) {
        return std::move(text).error();
    }
    auto inputs = ParseJson(*text);
    if (!inputs) {
        return Error::InvalidArgument(path + ": " + inputs.error().message);
    }
    if (!inputs->is_object()) {
        return Error::InvalidArgument(path + ": expected a JSON object of input values");
    }
    return std::move(*inputs);
}

/// The exit status one template's check calls for.
int TemplateStatus(const TemplateCheck& check) {
    if (check.valid()) {
        return kExitValid;
    }
    const bool unavailable = std::any_of(check.diagnostics.begin(), check.diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Severity::kError && IsImportUnavailable(d.code);
    });
    return unavailable ? kExitImportUnavailable : kExitInvalid;
}

}  // namespace

int RunToscaCheck(
    const std::vector<std::string>& args, const std::string& environment_mirrors, std::ostream& out, std::ostream& err
) {
    auto options = ParseArgs(args, environment_mirrors);
    if (!options) {
        err << "tosca-check: " << options.error().message << "\n" << kUsage;
        return kExitUsage;
    }
    if (options->help) {
        out << kUsage;
        return kExitValid;
    }
    if (options->version) {
        // The same build facts as the orchestrator's --version and GET /info.
        const BuildInfo info = GetBuildInfo();
        out << "tosca-check " << info.version << " (" << info.git_commit << ")\n";
        return kExitValid;
    }
    std::unique_ptr<http::Client> client;
    if (!options->engine.allowed_hosts.empty()) {
        auto made = http::MakeClient({});
        if (!made) {
            err << "tosca-check: " << made.error().message << "\n";
            return kExitInputFile;
        }
        client = std::move(*made);
        options->engine.http_client = client.get();
    }
    TemplateRequest base;
    if (options->inputs_file) {
        auto inputs = ReadInputs(*options->inputs_file, options->engine.limits.max_document_bytes);
        if (!inputs) {
            err << "tosca-check: " << OneLine(inputs.error().message) << "\n";
            return kExitInputFile;
        }
        base.inputs = std::move(*inputs);
    }
    const TemplateEngine engine(options->engine);
    int status = kExitValid;
    for (const auto& file : options->templates) {
        const auto text = ReadBounded(file, options->engine.limits.max_document_bytes);
        if (!text) {
            err << "tosca-check: " << OneLine(text.error().message) << "\n";
            status = std::max(status, kExitInputFile);
            continue;
        }
        TemplateRequest request = base;
        request.file_name = DisplayName(file);
        const std::string dir = std::filesystem::path(file).parent_path().string();
        request.base_directory = dir.empty() ? "." : dir;
        TemplateCheck check = engine.Check(*text, request);
        for (auto& d : check.diagnostics) {
            if (options->inputs_file && d.file == kParametersSource) {
                d.file = DisplayName(*options->inputs_file);  // an annotation on the inputs file
            }
        }
        PrintCheck(DisplayName(file), check, options->output, out);
        status = std::max(status, TemplateStatus(check));
    }
    return status;
}

}  // namespace orch::tosca::tools
