#include "connectors/slurm_job.hpp"

#include "connectors/workload.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>

namespace orch::connectors {
namespace {

constexpr std::string_view kBatchJobType = "tosca.nodes.indigo.Batch.Job";
constexpr std::string_view kDefaultPath = "/usr/local/bin:/usr/bin:/bin";
constexpr std::string_view kDefaultWorkDir = "/tmp";

Failure UserError(const tosca::NodeSpec& node, const std::string& what) {
    return Failure{FailureKind::kUserError, "node '" + node.name + "': " + what};
}

std::string Lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// "hh:mm:ss", "mm:ss" or plain minutes (the QCG wall_clock forms), rounded up to whole minutes
// because time_limit counts minutes.
std::optional<std::int64_t> ParseWallClockMinutes(const std::string& text) {
    std::vector<std::int64_t> parts;
    std::int64_t current = -1;
    for (const char c : text) {
        if (c == ':') {
            if (current < 0) {
                return std::nullopt;
            }
            parts.push_back(current);
            current = -1;
        } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 && current < 10'000'000) {
            current = (current < 0 ? 0 : current * 10) + (c - '0');
        } else {
            return std::nullopt;
        }
    }
    if (current < 0 || parts.size() > 2) {
        return std::nullopt;
    }
    parts.push_back(current);
    if (parts.size() == 1) {
        return parts[0];
    }
    std::int64_t seconds = 0;
    for (const auto part : parts) {
        seconds = seconds * 60 + part;
    }
    return (seconds + 59) / 60;
}

std::string GpuType(const tosca::GpuRequest& gpu, const Json& options) {
    if (gpu.model.empty()) {
        return {};
    }
    const std::string wanted = Lower(gpu.model);
    if (const auto types = options.find("gpu_types"); types != options.end() && types->is_object()) {
        for (const auto& [model, type] : types->items()) {
            if (Lower(model) == wanted && type.is_string()) {
                return type.get<std::string>();
            }
        }
    }
    std::string type = wanted;
    std::replace(type.begin(), type.end(), ' ', '_');
    return type;
}

// Batch.Job declares `arguments` as one string of shell words, Qcg.Job (and NodeSpec) as a list.
std::vector<std::string> ArgumentList(const tosca::NodeSpec& node, std::string& raw) {
    if (!node.arguments.empty()) {
        return node.arguments;
    }
    std::vector<std::string> out;
    if (const auto it = node.properties.find("arguments"); it != node.properties.end()) {
        if (it->is_string()) {
            raw = it->get<std::string>();
        } else if (it->is_array()) {
            for (const auto& argument : *it) {
                out.push_back(argument.is_string() ? argument.get<std::string>() : argument.dump());
            }
        }
    }
    return out;
}

// A line that does not occur in `text`, to end a here-document holding it.
std::string HereDocDelimiter(const std::string& text) {
    std::string delimiter = "ORCH_SCRIPT_END";
    while (("\n" + text + "\n").find("\n" + delimiter + "\n") != std::string::npos) {
        delimiter += "_";
    }
    return delimiter;
}

// A multi-line command is a script of its own, run as written (its own #! line, or /bin/sh). With
// arguments, a /bin/sh wrapper writes it to a temporary file and runs it with them: slurmrestd
// 22.05 hangs on a job `argv`, so the script has to carry its arguments itself.
std::string ScriptOfItsOwn(std::string script, const std::vector<std::string>& arguments, const std::string& raw) {
    if (script.rfind("#!", 0) != 0) {
        script = "#!/bin/sh\n" + script;
    }
    if (script.back() != '\n') {
        script += '\n';
    }
    if (arguments.empty() && raw.empty()) {
        return script;
    }
    const std::string end = HereDocDelimiter(script);
    return "#!/bin/sh\n"
           "orch_script=$(mktemp \"${TMPDIR:-/tmp}/orch-job.XXXXXX\") || exit 1\n"
           "cat >\"$orch_script\" <<'" +
           end + "'\n" + script + end +
           "\n"
           "chmod 700 \"$orch_script\"\n" +
           ShellJoin("\"$orch_script\"", arguments) + (raw.empty() ? "" : " " + raw) +
           "\n"
           "orch_status=$?\n"
           "rm -f \"$orch_script\"\n"
           "exit $orch_status\n";
}

ConnectorResult<std::string> Script(const tosca::NodeSpec& node) {
    const std::string command = node.command.empty() ? PropertyString(node, "executable") : node.command;
    if (command.empty()) {
        return UserError(node, "a batch job needs a command (or an executable) to run");
    }
    std::string raw;
    const std::vector<std::string> arguments = ArgumentList(node, raw);
    if (command.find('\n') != std::string::npos) {
        return ScriptOfItsOwn(command, arguments, raw);
    }
    return "#!/bin/sh\n" + ShellJoin(command, arguments) + (raw.empty() ? "" : " " + raw) + "\n";
}

Json Environment(const DeployRequest& request, const tosca::NodeSpec& node, int index) {
    Json env = Json::object();
    env["PATH"] = kDefaultPath;
    if (const auto it = node.properties.find("environment"); it != node.properties.end() && it->is_object()) {
        for (const auto& [key, value] : it->items()) {
            env[key] = value.is_string() ? value.get<std::string>() : value.dump();
        }
    }
    for (const auto& [key, value] : node.environment) {
        env[key] = value;
    }
    env["ORCH_DEPLOYMENT_ID"] = request.deployment_id;
    env["ORCH_NODE"] = node.name;
    env["ORCH_INSTANCE_INDEX"] = std::to_string(index);
    return env;
}

void AddResources(const DeployRequest& request, const tosca::NodeSpec& node, Json& job) {
    const auto& resources = node.resources;
    if (resources.cpus) {
        job["cpus_per_task"] = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(*resources.cpus)));
    } else if (const int cores = PropertyInt(node, "cores_per_node", 0); cores > 0) {
        job["cpus_per_task"] = cores;
    }
    if (resources.mem_mb) {
        job["memory_per_node"] = *resources.mem_mb;
    } else if (const int mem = PropertyInt(node, "memory_per_node", 0); mem > 0) {
        job["memory_per_node"] = mem;
    }
    if (const int tasks = PropertyInt(node, "total_cores", 0); tasks > 0) {
        job["tasks"] = tasks;
    }
    int gpus = resources.gpu.count;
    if (gpus == 0) {
        gpus = PropertyInt(node, "gpus", 0);
    }
    if (gpus > 0) {
        const std::string type = GpuType(resources.gpu, request.target.options);
        job["gpus_per_node"] = type.empty() ? std::to_string(gpus) : type + ":" + std::to_string(gpus);
    }
}

std::string SiteWorkingDirectory(const DeployRequest& request) {
    const std::string directory = OptionString(request.target, "working_directory");
    return directory.empty() ? std::string(kDefaultWorkDir) : directory;
}

// The user's home on the site: the option `home_directory` with %u replaced by the user name; a
// site that declares none has its jobs run in its working directory instead.
std::string SiteHome(const DeployRequest& request) {
    std::string home = OptionString(request.target, "home_directory");
    if (home.empty()) {
        return SiteWorkingDirectory(request);
    }
    for (auto at = home.find("%u"); at != std::string::npos; at = home.find("%u", at)) {
        home.replace(at, 2, request.target.credentials.username);
        at += request.target.credentials.username.size();
    }
    return home;
}

// QCG templates put paths in the user's home ("${HOME}", "$HOME/out", "~/out"): QCG expanded
// them on the site, but slurmrestd takes paths literally, and a job whose working directory is
// the text "${HOME}" fails (found end to end with deep_qcg_job.yaml).
std::string ExpandHome(const std::string& path, const DeployRequest& request) {
    for (const std::string_view prefix : {"${HOME}", "$HOME", "~"}) {
        if (path.rfind(prefix, 0) != 0) {
            continue;
        }
        const std::string rest = path.substr(prefix.size());
        if (rest.empty() || rest[0] == '/') {  // not "$HOMEDIR" nor "~user"
            return SiteHome(request) + rest;
        }
    }
    return path;
}

}  // namespace

std::string SlurmJobName(const std::string& deployment_id, const std::string& node, int index) {
    std::string name = "orch-" + deployment_id + "-" + node + "-" + std::to_string(index);
    for (char& c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_' && c != '.') {
            c = '_';
        }
    }
    return name;
}

bool IsSlurmJobNode(const tosca::NodeSpec& node) {
    return HasType(node, kBatchJobType);
}

ConnectorResult<Json> BuildSlurmSubmission(const DeployRequest& request, const tosca::NodeSpec& node, int index) {
    auto script = Script(node);
    if (auto* failure = std::get_if<Failure>(&script)) {
        return *failure;
    }
    const std::string name = SlurmJobName(request.deployment_id, node.name, index);
    Json job = {
        {"name", name},
        {"environment", Environment(request, node, index)},
        {"requeue", false},
    };
    const std::string directory = PropertyString(node, "directory");
    job["current_working_directory"] =
        directory.empty() ? SiteWorkingDirectory(request) : ExpandHome(directory, request);

    const std::string out = PropertyString(node, "std_outerr").empty() ? PropertyString(node, "stdout")
                                                                       : PropertyString(node, "std_outerr");
    job["standard_output"] = out.empty() ? name + "-%j.out" : ExpandHome(out, request);
    if (const auto err = PropertyString(node, "stderr"); !err.empty()) {
        job["standard_error"] = ExpandHome(err, request);
    }
    if (const auto in = PropertyString(node, "stdin"); !in.empty()) {
        job["standard_input"] = ExpandHome(in, request);
    }

    const std::string queue = PropertyString(node, "queue");
    const std::string partition = queue.empty() ? OptionString(request.target, "partition") : queue;
    if (!partition.empty()) {
        job["partition"] = partition;
    }
    if (!request.target.project.empty()) {
        job["account"] = request.target.project;
    }
    if (const auto wall_clock = PropertyString(node, "wall_clock"); !wall_clock.empty()) {
        const auto minutes = ParseWallClockMinutes(wall_clock);
        if (!minutes || *minutes <= 0) {
            return UserError(node, "wall_clock '" + wall_clock + "' is not a duration like 01:30:00");
        }
        job["time_limit"] = *minutes;
    }
    AddResources(request, node, job);
    return Json{{"script", std::get<std::string>(std::move(script))}, {"job", std::move(job)}};
}

}  // namespace orch::connectors
