// The GitLab CI and GitHub Actions jobs of docs/tosca-check.md, run as documented: the YAML between
// the `<!-- ci-job:begin NAME -->` and `<!-- ci-job:end -->` markers is parsed, the GitLab job's
// `script` and the GitHub job's `run` steps are run with `sh -e` (as the runners do) in a scratch
// repository laid out as the page says, with build/bin first on PATH. A change to the page that
// breaks the jobs, or to tosca-check that breaks the page, fails here.
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

/// The fenced YAML block between the markers of job `name` in docs/tosca-check.md.
YAML::Node DocumentedJob(const std::string& name) {
    const std::string doc = orch::test::ReadFile(orch::test::SourceDir() + "/docs/tosca-check.md");
    const std::string begin = "<!-- ci-job:begin " + name + " -->";
    const std::size_t start = doc.find(begin);
    REQUIRE(start != std::string::npos);
    const std::size_t end = doc.find("<!-- ci-job:end -->", start);
    REQUIRE(end != std::string::npos);
    const std::string block = doc.substr(start + begin.size(), end - start - begin.size());
    const std::size_t open = block.find("```yaml\n");
    const std::size_t close = block.rfind("```");
    REQUIRE(open != std::string::npos);
    REQUIRE(close > open);
    return YAML::Load(block.substr(open + 8, close - open - 8));
}

/// The shell commands of a documented job: GitLab `script` lines, GitHub `run` steps.
std::string Commands(const std::string& name) {
    const YAML::Node job = DocumentedJob(name);
    std::string script;
    if (name == "gitlab") {
        for (const auto& line : job["tosca-check"]["script"]) {
            script += line.as<std::string>() + "\n";
        }
    } else {
        for (const auto& step : job["jobs"]["tosca-check"]["steps"]) {
            if (step["run"]) {
                script += step["run"].as<std::string>() + "\n";
            }
        }
    }
    REQUIRE(script.find("tosca-check") != std::string::npos);
    return script;
}

/// A scratch repository: templates/ and tosca-types/ as docs/tosca-check.md lays them out.
class Repository {
   public:
    Repository() : root_(fs::path(orch::test::BinaryDir()) / ("ci-job-repo-" + std::to_string(::getpid()))) {
        fs::remove_all(root_);
        fs::create_directories(root_ / "templates");
        fs::create_directories(root_ / "tosca-types");
        fs::copy_file(
            Corpus("indigo-dc-tosca-types/refs/master/custom_types.yaml"), root_ / "tosca-types/custom_types.yaml"
        );
    }
    Repository(const Repository&) = delete;
    Repository& operator=(const Repository&) = delete;
    ~Repository() {
        std::error_code ec;
        fs::remove_all(root_, ec);
    }
    static std::string Corpus(const std::string& relative) {
        return orch::test::SharedDir() + "/tosca-corpus/" + relative;
    }
    void Template(const std::string& name, const std::string& corpus_file) const {
        fs::copy_file(Corpus(corpus_file), root_ / "templates" / name, fs::copy_options::overwrite_existing);
    }
    void Write(const std::string& name, const std::string& text) const { std::ofstream(root_ / name) << text; }
    void Remove(const std::string& name) const { fs::remove_all(root_ / name); }

    struct Outcome {
        int status = -1;
        std::string output;
    };
    /// Runs `script` with `sh -e` in the repository, build/bin first on PATH, stderr with stdout.
    Outcome Run(const std::string& script) const {
        const fs::path file = root_ / "job.sh";
        std::ofstream(file) << script;
        const std::string command =
            "cd '" + root_.string() + "' && PATH='" + orch::test::BinaryDir() + "/bin':\"$PATH\" sh -e job.sh 2>&1";
        FILE* pipe = ::popen(command.c_str(), "r");  // NOLINT(cert-env33-c): fixed test command
        REQUIRE(pipe != nullptr);
        Outcome outcome;
        std::array<char, 4096> buffer{};
        std::size_t n = 0;
        while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
            outcome.output.append(buffer.data(), n);
        }
        const int status = ::pclose(pipe);
        outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return outcome;
    }

   private:
    fs::path root_;
};

const std::string kValid = "indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml";
const std::string kInvalid = "indigo-dc-orchestrator/src/test/resources/tosca/galaxy_tosca_clues_error.yaml";
const std::string kWithInputs =
    "indigo-dc-orchestrator/src/test/resources/tosca/inputs/tosca_inputs_required_not_given.yaml";

bool HasLineStarting(const std::string& text, const std::string& prefix) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) == 0) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("the documented CI jobs pass valid templates and annotate invalid ones", "[tosca-check][docs]") {
    const std::string binary = orch::test::BinaryDir() + "/bin/tosca-check";
    REQUIRE(fs::exists(binary));
    struct Job {
        std::string name;
        std::string error_annotation;  ///< how the invalid template's error must appear
        std::string input_error;       ///< how the out-of-range input must appear (on the inputs file)
    };
    for (const Job& job : {
             Job{"gitlab",
                 "templates/app.yaml:56:13: error: topology_template.node_templates.torque_wn.type: unknown node type",
                 "templates/server.inputs.json: error: parameters.cpus: \"3\" is not one of the valid values"},
             Job{"github",
                 "::error file=templates/app.yaml,line=56,col=13,title=tosca-check E-UNKNOWN-TYPE::"
                 "topology_template.node_templates.torque_wn.type: unknown node type",
                 "::error file=templates/server.inputs.json,title=tosca-check E-INPUT-VALUE::parameters.cpus: "},
         }) {
        const std::string script = Commands(job.name);
        const Repository repo;
        repo.Template("app.yaml", kValid);
        repo.Template("server.yaml", kWithInputs);
        repo.Write("templates/server.inputs.json", R"({"cpus": 4})");
        const auto valid = repo.Run(script);
        INFO(job.name << " job, valid templates:\n" << script << "\n" << valid.output);
        CHECK(valid.status == 0);
        CHECK(valid.output.find("error") == std::string::npos);
        CHECK(valid.output.find("W-DUPLICATE-KEY") == std::string::npos);  // the types' own warning, suppressed

        repo.Template("app.yaml", kInvalid);
        repo.Write("templates/server.inputs.json", R"({"cpus": 3})");  // not one of 1, 2, 4, 8
        const auto invalid = repo.Run(script);
        INFO(job.name << " job, invalid templates:\n" << invalid.output);
        CHECK(invalid.status == 1);
        CHECK(HasLineStarting(invalid.output, job.error_annotation));
        CHECK(HasLineStarting(invalid.output, job.input_error));

        // Without the types copy the templates cannot be checked: 3, not "invalid".
        repo.Remove("tosca-types");
        const auto unavailable = repo.Run(script);
        INFO(job.name << " job, no types:\n" << unavailable.output);
        CHECK(unavailable.status == 3);
    }
}
