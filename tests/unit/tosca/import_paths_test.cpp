// Where imports are looked for and what their errors show: relative imports resolve against the
// importing file at every level (also for files named without a directory on tosca-check's
// command line), and an import error names the import as the template wrote it, never the
// server's mirror file path. tosca-check also reads standard input ("-") with the size limit.
#include "tool_run.hpp"
#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;
using test::Run;
using test::Tool;

/// A scratch directory, made the current directory for the test's duration.
class ScratchCwd {
   public:
    ScratchCwd()
        : previous_(fs::current_path()),
          path_(fs::temp_directory_path() / ("tosca-cwd-" + std::to_string(::getpid()) + "-" + std::to_string(n_++))) {
        fs::create_directories(path_);
        fs::current_path(path_);
    }
    ~ScratchCwd() {
        std::error_code ec;
        fs::current_path(previous_, ec);
        fs::remove_all(path_, ec);
    }
    void Write(const std::string& name, const std::string& text) const {
        fs::create_directories((path_ / name).parent_path());
        std::ofstream(path_ / name, std::ios::binary) << text;
    }

   private:
    static inline int n_ = 0;
    fs::path previous_;
    fs::path path_;
};

const char* kLeafTypes =
    "tosca_definitions_version: tosca_simple_yaml_1_0\n"
    "node_types:\n  acme.Server:\n    derived_from: tosca.nodes.Compute\n";

std::string Importing(const std::string& import) {
    return "tosca_definitions_version: tosca_simple_yaml_1_0\nimports:\n  - " + import + "\n";
}

std::string TemplateImporting(const std::string& import) {
    return Importing(import) + "topology_template:\n  node_templates:\n    s: {type: acme.Server}\n";
}

TEST_CASE("tosca-check: a chain of relative imports in the current directory", "[tosca][tosca-check][imports]") {
    const ScratchCwd cwd;
    // a.yaml -> b.yaml -> c.yaml, all next to each other, named without a directory.
    cwd.Write("a.yaml", TemplateImporting("b.yaml"));
    cwd.Write("b.yaml", Importing("c.yaml"));
    cwd.Write("c.yaml", kLeafTypes);
    const Run flat = Tool({"a.yaml"});
    INFO(flat.out << flat.err);
    CHECK(flat.status == 0);
    CHECK(flat.out.find("a.yaml: valid") != std::string::npos);
}

TEST_CASE(
    "tosca-check: nested imports resolve against the importing file at every level", "[tosca][tosca-check][imports]"
) {
    const ScratchCwd cwd;
    // a.yaml -> types/b.yaml -> c.yaml next to b.yaml (types/c.yaml), then ../shared/d.yaml from there.
    cwd.Write("a.yaml", TemplateImporting("types/b.yaml"));
    cwd.Write("types/b.yaml", Importing("c.yaml"));
    cwd.Write("types/c.yaml", Importing("../shared/d.yaml"));
    cwd.Write("shared/d.yaml", kLeafTypes);
    cwd.Write("c.yaml", "not: [a, template");  // a c.yaml in the current directory must not be read
    const Run run = Tool({"a.yaml"});
    INFO(run.out << run.err);
    CHECK(run.status == 0);
    const Run dotted = Tool({"./a.yaml"});
    INFO(dotted.out << dotted.err);
    CHECK(dotted.status == 0);
}

TEST_CASE("an import error names the import as written, not the server's mirror file", "[tosca][imports]") {
    const ScratchCwd cwd;
    EngineOptions options;
    const std::string mirror_dir = (fs::current_path() / "srv-mirror").string();
    options.mirrors.push_back({"https://types.example.org/", mirror_dir + "/"});
    const TemplateEngine engine(options);
    const auto check = engine.Check(TemplateImporting("https://types.example.org/v1/missing.yaml"));
    REQUIRE_FALSE(check.valid());
    const std::string message = check.ErrorMessage();
    INFO(message);
    CHECK(message.find("https://types.example.org/v1/missing.yaml") != std::string::npos);
    CHECK(message.find(mirror_dir) == std::string::npos);
    CHECK(message.find("srv-mirror") == std::string::npos);
}

/// A stream buffer that never ends: every read gets more zero bytes.
class Endless : public std::streambuf {
   protected:
    int_type underflow() override {
        setg(block_, block_, block_ + sizeof block_);
        return traits_type::to_int_type(block_[0]);
    }

   private:
    char block_[4096] = {};
};

TEST_CASE("tosca-check - reads standard input, and stops endless input at the size limit", "[tosca][tosca-check]") {
    Endless endless;
    std::streambuf* saved = std::cin.rdbuf(&endless);
    const Run run = Tool({"--max-bytes", "256KiB", "-"});
    std::cin.rdbuf(saved);
    CHECK(run.status == tools::kExitInputFile);
    CHECK(run.err.find("<stdin> is larger than the limit of 262144 bytes") != std::string::npos);

    std::istringstream small(TemplateImporting("b.yaml"));
    const ScratchCwd cwd;
    cwd.Write("b.yaml", kLeafTypes);
    saved = std::cin.rdbuf(small.rdbuf());
    const Run valid = Tool({"-"});
    std::cin.rdbuf(saved);
    INFO(valid.out << valid.err);
    CHECK(valid.status == 0);
    CHECK(valid.out.find("<stdin>: valid") != std::string::npos);
}

TEST_CASE("tosca-check --max-bytes takes a size and refuses nonsense", "[tosca][tosca-check]") {
    const ScratchCwd cwd;
    cwd.Write("a.yaml", TemplateImporting("c.yaml"));
    cwd.Write("c.yaml", kLeafTypes);
    const Run small = Tool({"--max-bytes", "10", "a.yaml"});
    CHECK(small.status == tools::kExitInputFile);
    CHECK(small.err.find("a.yaml is larger than the limit of 10 bytes") != std::string::npos);
    CHECK(Tool({"--max-bytes", "1MiB", "a.yaml"}).status == 0);
    CHECK(Tool({"--max-bytes", "lots", "a.yaml"}).status == tools::kExitUsage);
    CHECK(Tool({"--max-bytes", "0", "a.yaml"}).status == tools::kExitUsage);
}

}  // namespace
}  // namespace orch::tosca
