#include "check_command.hpp"

#include "common/http_client.hpp"
#include "common/json.hpp"
#include "tosca/engine.hpp"
#include "tosca/report.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

namespace orch::tosca::tools {
namespace {

constexpr const char* kUsage =
    "usage: tosca-check [--inputs FILE.json] [--mirror URL_PREFIX=DIR]... [--allow-host HOST]...\n"
    "                   [--strict] [--json] TEMPLATE...\n"
    "\n"
    "Validates TOSCA templates as the orchestrator does on a create request.\n"
    "  --inputs FILE.json   check the inputs and evaluate get_input with these parameters\n"
    "                       (without it, required inputs without a default are accepted)\n"
    "  --mirror P=DIR       read imports whose URL starts with P from DIR (repeatable;\n"
    "                       ORCHESTRATOR_TOSCA_MIRRORS=P=DIR;P2=DIR2 is also read)\n"
    "  --allow-host HOST    fetch https imports from HOST when no mirror maps them\n"
    "  --strict             TOSCA Simple Profile rules instead of the original's leniencies\n"
    "  --json               one JSON object per template and line\n"
    "Exit status: 0 all valid, 1 some template invalid, 2 usage or I/O error.\n";

struct Options {
    std::optional<std::string> inputs_file;
    std::vector<std::string> templates;
    EngineOptions engine;
    bool json = false;
    bool help = false;
};

std::optional<std::string> ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
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
        const std::string& arg = args[i];
        const bool has_value = i + 1 < args.size();
        if (arg == "--help" || arg == "-h") {
            options.help = true;
        } else if (arg == "--json") {
            options.json = true;
        } else if (arg == "--strict") {
            options.engine.mode = Mode::kStrict;
        } else if ((arg == "--inputs" || arg == "--mirror" || arg == "--allow-host") && !has_value) {
            return Error::InvalidArgument(arg + " needs a value");
        } else if (arg == "--inputs") {
            options.inputs_file = args[++i];
        } else if (arg == "--mirror") {
            ORCH_RETURN_IF_ERROR(add_mirrors(args[++i]));
        } else if (arg == "--allow-host") {
            options.engine.allowed_hosts.push_back(args[++i]);
        } else if (arg.size() > 1 && arg[0] == '-') {
            return Error::InvalidArgument("unknown option " + arg);
        } else {
            options.templates.push_back(arg);
        }
    }
    if (options.templates.empty() && !options.help) {
        return Error::InvalidArgument("no template given");
    }
    return options;
}

/// The --inputs file as a JSON object.
Result<Json> ReadInputs(const std::string& path) {
    const auto text = ReadFile(path);
    if (!text) {
        return Error::NotFound("cannot read " + path);
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

void PrintHuman(const std::string& file, const TemplateCheck& check, std::ostream& out) {
    std::size_t warnings = 0;
    for (const auto& d : check.diagnostics) {
        out << FormatDiagnostic(d) << "\n";
        warnings += d.severity == Severity::kWarning ? 1 : 0;
    }
    const std::string warned = warnings > 0 ? ", " + std::to_string(warnings) + " warning(s)" : "";
    if (check.spec) {
        out << file << ": valid (" << DeploymentKindName(check.spec->kind) << ", " << check.spec->nodes.size()
            << " node(s)" << warned << ")\n";
    } else {
        out << file << ": invalid (" << CountErrors(check.diagnostics) << " error(s)" << warned << ")\n";
    }
}

}  // namespace

int RunToscaCheck(
    const std::vector<std::string>& args, const std::string& environment_mirrors, std::ostream& out, std::ostream& err
) {
    auto options = ParseArgs(args, environment_mirrors);
    if (!options) {
        err << "tosca-check: " << options.error().message << "\n" << kUsage;
        return kExitUsageOrIo;
    }
    if (options->help) {
        out << kUsage;
        return kExitValid;
    }
    std::unique_ptr<http::Client> client;
    if (!options->engine.allowed_hosts.empty()) {
        auto made = http::MakeClient({});
        if (!made) {
            err << "tosca-check: " << made.error().message << "\n";
            return kExitUsageOrIo;
        }
        client = std::move(*made);
        options->engine.http_client = client.get();
    }
    TemplateRequest base;
    if (options->inputs_file) {
        auto inputs = ReadInputs(*options->inputs_file);
        if (!inputs) {
            err << "tosca-check: " << inputs.error().message << "\n";
            return kExitUsageOrIo;
        }
        base.inputs = std::move(*inputs);
    }
    const TemplateEngine engine(options->engine);
    int status = kExitValid;
    for (const auto& file : options->templates) {
        const auto text = ReadFile(file);
        if (!text) {
            err << "tosca-check: cannot read " << file << "\n";
            status = kExitUsageOrIo;
            continue;
        }
        TemplateRequest request = base;
        request.file_name = file;
        const std::string dir = std::filesystem::path(file).parent_path().string();
        request.base_directory = dir.empty() ? "." : dir;
        const TemplateCheck check = engine.Check(*text, request);
        if (options->json) {
            Json report = CheckReport(check);
            report["file"] = file;
            out << report.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
        } else {
            PrintHuman(file, check, out);
        }
        if (!check.valid() && status == kExitValid) {
            status = kExitInvalid;
        }
    }
    return status;
}

}  // namespace orch::tosca::tools
