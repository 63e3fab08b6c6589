// tosca-check for CI pipelines (issue 23): distinct exit statuses, warning codes and their
// suppression, and the gcc and GitHub Actions output formats.
#include "tool_run.hpp"
#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;
using test::Run;
using test::Tool;

std::string Corpus(const std::string& relative) {
    return test::CorpusDir() + "/" + relative;
}

std::string Mirror() {
    return std::string(test::kIndigoTypesPrefix) + "=" + Corpus("indigo-dc-tosca-types/refs/");
}

const std::string kMarathon = Corpus("indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml");
const std::string kTypo = Corpus("indigo-dc-orchestrator/src/test/resources/tosca/galaxy_tosca_clues_error.yaml");

/// A scratch directory removed at the end of the test.
class Scratch {
   public:
    Scratch() : path_(fs::temp_directory_path() / ("tosca-check-ci-" + std::to_string(::getpid()))) {
        fs::create_directories(path_);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string Write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name, std::ios::binary) << text;
        return (path_ / name).string();
    }
    std::string Dir() const { return path_.string(); }

   private:
    fs::path path_;
};

std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

bool Contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST_CASE("tosca-check exit 3: an import refused or unreachable is not an invalid template", "[tosca][tosca-check]") {
    // No mirror and no allow-listed host: the INDIGO types import is refused.
    const Run refused = Tool({kMarathon});
    INFO(refused.out);
    CHECK(refused.status == tools::kExitImportUnavailable);
    CHECK(Contains(refused.out, kMarathon + ": not checked, an import is unavailable"));
    // A mirror directory without the file: the import cannot be read.
    const Scratch empty;
    const Run unreachable = Tool({"--mirror", std::string(test::kIndigoTypesPrefix) + "=" + empty.Dir(), kMarathon});
    CHECK(unreachable.status == tools::kExitImportUnavailable);
    // The largest status applies: an invalid template beside an unreachable import is still 3...
    CHECK(Tool({kTypo, kMarathon}).status == tools::kExitImportUnavailable);
    // ... and the same templates with their imports are 1 and 0.
    CHECK(Tool({"--mirror", Mirror(), kTypo, kMarathon}).status == tools::kExitInvalid);
    CHECK(Tool({"--mirror", Mirror(), kMarathon}).status == tools::kExitValid);
}

TEST_CASE(
    "tosca-check exit 4: a file on the command line is unreadable, too large or malformed", "[tosca][tosca-check]"
) {
    CHECK(Tool({"/nonexistent/template.yaml"}).status == tools::kExitInputFile);
    CHECK(Tool({"--max-bytes", "1KiB", "--mirror", Mirror(), kMarathon}).status == tools::kExitInputFile);
    const Scratch dir;
    const std::string inputs = dir.Write("inputs.json", "[1]");
    CHECK(Tool({"--inputs", inputs, "--mirror", Mirror(), kMarathon}).status == tools::kExitInputFile);
    // 4 outranks 1 and 3 when several templates are checked.
    CHECK(Tool({kTypo, "/nonexistent/template.yaml"}).status == tools::kExitInputFile);
}

TEST_CASE("tosca-check exit 2: the command line is wrong, nothing is checked", "[tosca][tosca-check]") {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {},
             {"--frobnicate", kMarathon},
             {"--format=xml", kMarathon},
             {"--format"},
             {"--suppress-warning", "W-NO-SUCH-CODE", kMarathon},
             {"--suppress-warning", "DUPLICATE-KEY", kMarathon},  // the code as printed, W- included
             {"--quiet=yes", kMarathon},
         }) {
        const Run run = Tool(args);
        INFO(run.err);
        CHECK(run.status == tools::kExitUsage);
        CHECK(run.out.empty());
        CHECK(Contains(run.err, "usage: tosca-check"));
    }
}

TEST_CASE("tosca-check warnings carry stable codes and can be suppressed", "[tosca][tosca-check]") {
    const Run plain = Tool({"--mirror", Mirror(), kMarathon});
    CHECK(plain.status == 0);
    CHECK(Contains(plain.out, "custom_types.yaml:1307:7: warning[W-DUPLICATE-KEY]: duplicate key 'constraints'"));
    CHECK(Contains(plain.out, kMarathon + ":20:17: warning[W-REQUIREMENT]: "));
    CHECK(Contains(plain.out, ": valid (MARATHON, 2 node(s), 2 warning(s))"));

    const Run one = Tool({"--mirror", Mirror(), "--suppress-warning", "W-DUPLICATE-KEY", kMarathon});
    CHECK(one.status == 0);
    CHECK_FALSE(Contains(one.out, "W-DUPLICATE-KEY"));
    CHECK(Contains(one.out, "warning[W-REQUIREMENT]"));
    CHECK(Contains(one.out, "1 warning(s), 1 warning(s) suppressed"));

    const Run both =
        Tool({"--mirror", Mirror(), "--suppress-warning=W-DUPLICATE-KEY", "--suppress-warning=W-REQUIREMENT", kMarathon}
        );
    CHECK(
        Lines(both.out) ==
        std::vector<std::string>{kMarathon + ": valid (MARATHON, 2 node(s), 2 warning(s) suppressed)"}
    );

    const Run quiet_warnings = Tool({"--mirror", Mirror(), "--quiet-warnings", kMarathon});
    CHECK(Lines(quiet_warnings.out).size() == 1);
    CHECK_FALSE(Contains(quiet_warnings.out, "warning["));

    // A clean template with --quiet prints nothing at all; an invalid one still prints its errors.
    const Run silent = Tool({"--mirror", Mirror(), "--quiet", "--quiet-warnings", kMarathon});
    CHECK(silent.status == 0);
    CHECK(silent.out.empty());
    const Run failing = Tool({"--mirror", Mirror(), "-q", "--quiet-warnings", kTypo});
    CHECK(failing.status == 1);
    CHECK(Contains(failing.out, kTypo + ":56:13: error: "));
    CHECK(Contains(failing.out, kTypo + ": invalid (1 error(s)"));
    // Suppression never hides an error.
    CHECK(Contains(Tool({"--mirror", Mirror(), "--suppress-warning", "W-UNKNOWN-TYPE", kTypo}).out, ":56:13: error"));
}

TEST_CASE("tosca-check --format=gcc: file:line:col: severity: message [CODE]", "[tosca][tosca-check]") {
    const Run run = Tool({"--format=gcc", "--mirror", Mirror(), kTypo});
    CHECK(run.status == 1);
    CHECK(Contains(
        run.out,
        kTypo + ":56:13: error: topology_template.node_templates.torque_wn.type: unknown node type "
                "tosca.nodes.indigo.Comput (not a normative type and not defined by the imports) [E-UNKNOWN-TYPE]\n"
    ));
    CHECK(Contains(run.out, "custom_types.yaml:1307:7: warning: duplicate key 'constraints'"));
    CHECK(Contains(run.out, "[W-DUPLICATE-KEY]\n"));
    // The separate-argument spelling is the same.
    CHECK(Tool({"--format", "gcc", "--mirror", Mirror(), kTypo}).out == run.out);
}

TEST_CASE("tosca-check --format=github: workflow commands with file, line and column", "[tosca][tosca-check]") {
    const Run run = Tool({"--format=github", "--mirror", Mirror(), kTypo});
    CHECK(run.status == 1);
    CHECK(Contains(
        run.out,
        "::error file=" + kTypo +
            ",line=56,col=13,title=tosca-check E-UNKNOWN-TYPE::topology_template.node_templates.torque_wn.type: "
            "unknown node type tosca.nodes.indigo.Comput"
    ));
    // Property values escape ':' and ','.
    CHECK(Contains(
        run.out,
        "::warning file=https%3A//raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml,line=1307,"
        "col=7,title=tosca-check W-DUPLICATE-KEY::duplicate key 'constraints'"
    ));
    CHECK(Contains(run.out, kTypo + ": invalid (1 error(s), 1 warning(s))"));
}

TEST_CASE("tosca-check: a template cannot forge output lines or workflow commands", "[tosca][tosca-check]") {
    // A quoted YAML key may hold a newline; the messages quote the key.
    const Scratch dir;
    const std::string forged = dir.Write(
        "forged.yaml",
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "\"x\\n::error file=ok.yaml,line=1::forged\\nok.yaml: valid\": 1\n"
        "\"x\\n::error file=ok.yaml,line=1::forged\\nok.yaml: valid\": 2\n"
        "topology_template: {node_templates: {s: {type: tosca.nodes.Compute}}}\n"
    );
    for (const char* format : {"--format=human", "--format=gcc", "--format=github"}) {
        const Run run = Tool({format, forged});
        INFO(format << "\n" << run.out);
        CHECK(run.status == 0);  // an unknown top-level key is a warning in compatibility mode
        const auto lines = Lines(run.out);
        CHECK(Contains(run.out, "forged"));  // the text is there, escaped...
        for (const auto& line : lines) {
            CHECK_FALSE(line.rfind("ok.yaml", 0) == 0);  // ... but starts no line of its own
            if (line.rfind("::", 0) == 0) {
                CHECK(std::string(format) == "--format=github");
                CHECK((line.rfind("::error file=" + forged, 0) == 0 || line.rfind("::warning file=" + forged, 0) == 0));
            }
        }
    }
}

TEST_CASE("tosca-check attributes findings about the parameters to the --inputs file", "[tosca][tosca-check]") {
    const Scratch dir;
    const std::string inputs = dir.Write("inputs.json", R"({"cpus": 3})");
    const std::string required =
        Corpus("indigo-dc-orchestrator/src/test/resources/tosca/inputs/tosca_inputs_required_not_given.yaml");
    const Run run = Tool({"--format=gcc", "--inputs", inputs, required});
    INFO(run.out);
    CHECK(run.status == tools::kExitInvalid);
    const std::string expected = inputs + ": error: parameters.cpus: \"3\" is not one of the valid values";
    CHECK(Lines(run.out).front().rfind(expected, 0) == 0);
}

TEST_CASE("diagnostic codes: every code has its own stable name, which reads back", "[tosca][tosca-check]") {
    // A code added to the enum without a name would print as GENERAL and be unsuppressible.
    const auto& all = AllDiagnosticCodes();
    CHECK(all.size() == static_cast<std::size_t>(DiagnosticCode::kNoTopology) + 1);
    std::set<std::string_view> names;
    for (const DiagnosticCode code : all) {
        names.insert(DiagnosticCodeName(code));
        CHECK(DiagnosticCodeByName(DiagnosticCodeName(code)) == code);
    }
    CHECK(names.size() == all.size());
    // Users write these in their pipelines: they must not change.
    CHECK(DiagnosticCodeName(DiagnosticCode::kDuplicateKey) == "DUPLICATE-KEY");
    CHECK(DiagnosticCodeName(DiagnosticCode::kRequirement) == "REQUIREMENT");
    CHECK(DiagnosticCodeName(DiagnosticCode::kImportUnreachable) == "IMPORT-UNREACHABLE");
    CHECK(DiagnosticCodeName(DiagnosticCode::kImportRefused) == "IMPORT-REFUSED");
}

TEST_CASE("tosca-check --json carries each finding's code", "[tosca][tosca-check]") {
    const Run run = Tool({"--format=json", "--mirror", Mirror(), "--suppress-warning=W-DUPLICATE-KEY", kTypo});
    CHECK(run.status == 1);
    const Json report = Json::parse(run.out);
    REQUIRE(report["errors"].size() == 1);  // the suppressed warning is left out
    CHECK(report["errors"][0]["code"] == "E-UNKNOWN-TYPE");
}

}  // namespace
}  // namespace orch::tosca
