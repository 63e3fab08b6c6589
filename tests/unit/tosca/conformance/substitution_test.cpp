// TOSCA Simple Profile 1.3 §3.8.13 (substitution_mappings) and §3.5.8 (imports): a topology
// whose inputs stand for the substituted node type's properties must give them values those
// properties accept; an imported document's topology is ignored, but a default its own input
// definition refuses is refused in strict mode. Imports resolve against the importing file at
// every level.
#include "conformance.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace orch::tosca::test {
namespace {

namespace fs = std::filesystem;

std::string Substituting(std::string_view inputs, std::string_view mapping) {
    return Tosca(
        "node_types:\n"
        "  acme.Db:\n"
        "    derived_from: tosca.nodes.Root\n"
        "    properties:\n"
        "      port: {type: integer, constraints: [{in_range: [1024, 65535]}]}\n"
        "      size: {type: scalar-unit.size, required: false}\n"
        "topology_template:\n"
        "  inputs:\n" +
        std::string(inputs) +
        "  substitution_mappings:\n"
        "    node_type: acme.Db\n" +
        std::string(mapping) +
        "  node_templates:\n"
        "    server: {type: tosca.nodes.Compute}\n"
    );
}

TEST_CASE(
    "conformance 3.8.13: substitution inputs satisfy the substituted properties", "[tosca][conformance][substitution]"
) {
    SECTION("inputs named like the properties (1.0 form)") {
        ExpectForm(
            {"1.3 §3.8.13, §2.10",
             Substituting("    port: {type: integer, default: 5432}\n", ""),
             Substituting("    port: {type: integer, default: 80}\n", ""),
             "input 'port' does not satisfy property 'port' of the substituted node type acme.Db",
             Compat::kWarns}
        );
    }
    SECTION("an explicit property mapping (1.2+ form)") {
        const std::string mapping = "    properties:\n      size: [disk]\n";
        ExpectForm(
            {"1.3 §3.8.13 (property mapping)",
             Substituting("    disk: {type: string, default: 10 GB}\n", mapping),
             Substituting("    disk: {type: string, default: huge}\n", mapping),
             "input 'disk' does not satisfy property 'size' of the substituted node type acme.Db",
             Compat::kWarns}
        );
        CHECK(
            Find(
                Check(
                    Substituting("    disk: {type: string}\n", "    properties:\n      colour: [disk]\n"),
                    std::nullopt,
                    Mode::kStrict
                ),
                "maps property 'colour', which node type acme.Db does not declare"
            ) != nullptr
        );
    }
    SECTION("the user's value is checked too") {
        const std::string text = Substituting("    port: {type: integer}\n", "");
        CHECK(Check(text, Json{{"port", 8080}}, Mode::kStrict).valid());
        CHECK(Find(Check(text, Json{{"port", 22}}, Mode::kStrict), "input 'port' does not satisfy") != nullptr);
    }
}

/// A scratch directory of files and an engine that reads local imports.
class Files {
   public:
    Files()
        : dir_(
              fs::temp_directory_path() /
              ("tosca-conformance-" + std::to_string(::getpid()) + "-" + std::to_string(n_++))
          ) {
        fs::create_directories(dir_);
    }
    ~Files() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    Files(const Files&) = delete;
    Files& operator=(const Files&) = delete;
    void Write(const std::string& name, const std::string& text) const {
        fs::create_directories((dir_ / name).parent_path());
        std::ofstream(dir_ / name, std::ios::binary) << text;
    }
    TemplateCheck Check(const std::string& text, Mode mode) const {
        EngineOptions options;
        options.mode = mode;
        options.allow_file_imports = true;
        TemplateRequest request;
        request.file_name = (dir_ / "main.yaml").string();
        request.base_directory = dir_.string();
        return TemplateEngine(options).Check(text, request);
    }

   private:
    static inline int n_ = 0;
    fs::path dir_;
};

TEST_CASE("conformance 3.5.8: nested imports resolve against the importing file", "[tosca][conformance][imports]") {
    const Files files;
    // main -> types/b.yaml -> c.yaml (next to b) -> ../shared/d.yaml, in short and extended forms.
    files.Write("types/b.yaml", Tosca("imports:\n  - c.yaml\n", "tosca_simple_yaml_1_0"));
    files.Write("types/c.yaml", Tosca("imports:\n  - file: ../shared/d.yaml\n"));
    files.Write(
        "shared/d.yaml",
        Tosca("node_types:\n  acme.Server:\n    derived_from: tosca.nodes.Compute\n", "tosca_simple_yaml_1_2")
    );
    const std::string node = "topology_template:\n  node_templates:\n    s: {type: acme.Server}\n";
    ExpectForm(
        {"1.3 §3.5.8 (import definition), §3.5.8.3 (relative to the importing file)",
         Tosca("imports:\n  - types/b.yaml\n" + node),
         Tosca("imports:\n  - types/c.yaml\n  - b.yaml\n" + node),
         "b.yaml"},
        [&](const std::string& text, Mode mode) { return files.Check(text, mode); }
    );
}

TEST_CASE("conformance 3.5.8: an imported topology's input defaults", "[tosca][conformance][imports]") {
    const Files files;
    const auto library = [](std::string_view default_value) {
        return Tosca(
            "topology_template:\n"
            "  inputs:\n"
            "    replicas: {type: integer, default: " +
                std::string(default_value) +
                ", constraints: [{greater_than: 0}]}\n"
                "  node_templates:\n"
                "    x: {type: tosca.nodes.Compute}\n",
            "tosca_simple_yaml_1_0"
        );
    };
    files.Write("good.yaml", library("2"));
    files.Write("bad.yaml", library("0"));
    const std::string node = "topology_template:\n  node_templates:\n    s: {type: tosca.nodes.Compute}\n";
    ExpectForm(
        {"1.3 §3.5.8, §3.6.13 (parameter definition constraints)",
         Tosca("imports:\n  - good.yaml\n" + node),
         Tosca("imports:\n  - bad.yaml\n" + node),
         "the imported topology's input 'replicas' has a default its definition refuses",
         Compat::kWarns},
        [&](const std::string& text, Mode mode) { return files.Check(text, mode); }
    );
}

TEST_CASE("conformance 3.1: an imported document of the NFV profile", "[tosca][conformance][imports]") {
    const Files files;
    files.Write("nfv.yaml", Tosca("node_types: {}\n", "tosca_simple_profile_for_nfv_1_0_0"));
    const TemplateCheck check = files.Check(
        Tosca("imports:\n  - nfv.yaml\ntopology_template:\n  node_templates:\n    s: {type: tosca.nodes.Compute}\n"),
        Mode::kCompat
    );
    INFO(Dump(check));
    CHECK(Find(check, "(the TOSCA Simple Profile for NFV is not supported)") != nullptr);
}

}  // namespace
}  // namespace orch::tosca::test
