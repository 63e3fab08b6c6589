// Alias amplification: an alias costs what it refers to, in text bytes and nodes, against a budget
// that is a multiple of the document's size, in both loaders. A node count alone let a 100 KB
// scalar referenced a thousand times through (a few thousand nodes, well under the node limit),
// to be expanded into gigabytes later when the tree was copied (ToJson of metadata, inputs, ...).
#include "tosca/engine.hpp"
#include "yaml/loader.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace orch::tosca {
namespace {

struct Outcome {
    std::optional<yaml::Document> doc;
    std::vector<Diagnostic> diagnostics;
};

Outcome Load(yaml::YamlParser parser, const std::string& text, yaml::LoadLimits limits = {}) {
    DiagSink sink;
    Outcome out;
    out.doc = yaml::LoadYamlWith(parser, text, "bomb.yaml", limits, sink);
    out.diagnostics = sink.Take();
    return out;
}

/// A block-style document (the fast loader's subset): one `scalar_bytes` scalar anchored, then
/// referenced `references` times from a sequence under metadata.copies.
std::string ScalarBomb(std::size_t scalar_bytes, std::size_t references) {
    std::string text = "tosca_definitions_version: tosca_simple_yaml_1_0\nmetadata:\n  big: &big ";
    text += std::string(scalar_bytes, 'x');
    text += "\n  copies:\n";
    for (std::size_t i = 0; i < references; ++i) {
        text += "    - *big\n";
    }
    return text;
}

/// Many small nodes aliased a few times: few bytes of text, many nodes.
std::string NodeBomb(std::size_t items, std::size_t references) {
    std::string text = "a: &a\n";
    for (std::size_t i = 0; i < items; ++i) {
        text += "  - 1\n";
    }
    text += "b:\n";
    for (std::size_t i = 0; i < references; ++i) {
        text += "  - *a\n";
    }
    return text;
}

const Diagnostic* LimitError(const std::vector<Diagnostic>& diagnostics) {
    for (const auto& d : diagnostics) {
        if (d.severity == Severity::kError && d.code == DiagnosticCode::kLimitExceeded) {
            return &d;
        }
    }
    return nullptr;
}

TEST_CASE(
    "an alias to a large scalar counts its bytes: yaml-cpp path refuses with place and path", "[tosca][yaml][limits]"
) {
    // ~100 KB scalar, 1000 references: 3,000 nodes (far under max_nodes), 100 MB expanded.
    const std::string text = ScalarBomb(100'000, 1'000);
    const Outcome out = Load(yaml::YamlParser::kYamlCpp, text);
    REQUIRE(out.doc);
    CHECK(out.doc->root == nullptr);
    const Diagnostic* error = LimitError(out.diagnostics);
    REQUIRE(error != nullptr);
    CHECK(error->message.find("aliases expand the document") != std::string::npos);
    CHECK(error->file == "bomb.yaml");
    CHECK(error->line > 4);  // at the alias that went over, not at the top
    CHECK(error->column == 7);
    CHECK(error->path.rfind("metadata.copies[", 0) == 0);
}

TEST_CASE(
    "an alias to a large scalar counts its bytes: the fast loader declines, LoadYaml refuses", "[tosca][yaml][limits]"
) {
    const std::string text = ScalarBomb(100'000, 1'000);
    // The fast loader gives up on a refused event, so the refusal is worded once (by the yaml-cpp path).
    CHECK_FALSE(Load(yaml::YamlParser::kFastOnly, text).doc.has_value());
    const Outcome out = Load(yaml::YamlParser::kAuto, text);
    REQUIRE(out.doc);
    CHECK(out.doc->root == nullptr);
    CHECK(LimitError(out.diagnostics) != nullptr);
}

TEST_CASE("aliased nodes count against the expansion budget even when they hold little text", "[tosca][yaml][limits]") {
    // 1,000 one-byte items referenced 100 times: 100,000 nodes (under max_nodes) but 900 KB of weight.
    const std::string text = NodeBomb(1'000, 100);
    for (const auto parser : {yaml::YamlParser::kYamlCpp, yaml::YamlParser::kAuto}) {
        const Outcome out = Load(parser, text);
        REQUIRE(out.doc);
        CHECK(out.doc->root == nullptr);
        const Diagnostic* error = LimitError(out.diagnostics);
        REQUIRE(error != nullptr);
        CHECK(error->path.rfind("b[", 0) == 0);
    }
    CHECK_FALSE(Load(yaml::YamlParser::kFastOnly, text).doc.has_value());
}

TEST_CASE("the expansion budget scales with the document and the configured factor", "[tosca][yaml][limits]") {
    // 10 references to a 20 KB scalar: 200 KB, under 4 x 64 KiB: fine with both parsers, and the
    // expanded byte count is the same whichever read it.
    const std::string text = ScalarBomb(20'000, 10);
    for (const auto parser : {yaml::YamlParser::kYamlCpp, yaml::YamlParser::kFastOnly}) {
        const Outcome out = Load(parser, text);
        REQUIRE(out.doc);
        REQUIRE(out.doc->root != nullptr);
        CHECK(LimitError(out.diagnostics) == nullptr);
        CHECK(out.doc->root->bytes >= 10 * 20'000);
    }
    // The same document with a factor of 2 is over budget (2 x 64 KiB < 200 KB).
    yaml::LoadLimits tight;
    tight.max_alias_expansion = 2;
    const Outcome out = Load(yaml::YamlParser::kAuto, text, tight);
    REQUIRE(out.doc);
    CHECK(out.doc->root == nullptr);
    CHECK(LimitError(out.diagnostics) != nullptr);
}

TEST_CASE("the engine refuses an alias bomb in metadata before copying it to JSON", "[tosca][engine][limits]") {
    const TemplateEngine engine(EngineOptions{});
    const TemplateCheck check = engine.Check(ScalarBomb(100'000, 2'000), TemplateRequest{"bomb.yaml"});
    CHECK_FALSE(check.valid());
    CHECK_FALSE(check.spec.has_value());
    const Diagnostic* error = LimitError(check.diagnostics);
    REQUIRE(error != nullptr);
    CHECK(check.ErrorMessage().find("aliases expand the document") != std::string::npos);
}

/// A template whose list property references the input `big` `references` times.
std::string InputCopies(std::size_t references) {
    std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "node_types:\n  acme.Lister:\n    derived_from: tosca.nodes.Root\n    properties:\n"
        "      items: {type: list, entry_schema: {type: string}}\n"
        "topology_template:\n  inputs:\n    big: {type: string}\n"
        "  node_templates:\n    n:\n      type: acme.Lister\n      properties:\n        items:\n";
    for (std::size_t i = 0; i < references; ++i) {
        text += "          - {get_input: big}\n";
    }
    return text;
}

TEST_CASE("a large input referenced many times is refused like an alias bomb", "[tosca][engine][limits]") {
    const TemplateEngine engine(EngineOptions{});
    TemplateRequest request{"copies.yaml"};
    // 500 references to a 100 KB parameter: 50 MB in the spec's properties from a 110 KB request.
    request.inputs = Json{{"big", std::string(100'000, 'x')}};
    const TemplateCheck bomb = engine.Check(InputCopies(500), request);
    CHECK_FALSE(bomb.spec.has_value());
    const Diagnostic* error = LimitError(bomb.diagnostics);
    REQUIRE(error != nullptr);
    CHECK(error->message.find("get_input and get_property results add up to more than") != std::string::npos);
    CHECK(error->path.find("topology_template.node_templates.n.properties.items[") == 0);
    // A few references are fine.
    const TemplateCheck few = engine.Check(InputCopies(2), request);
    INFO(few.ErrorMessage());
    CHECK(few.valid());
}

TEST_CASE("tosca.max_alias_expansion configures the factor", "[tosca][engine][config]") {
    ConfigTree config;
    config.Set("tosca.max_alias_expansion", "16");
    const auto options = EngineOptionsFromConfig(config);
    REQUIRE(options);
    CHECK(options->limits.max_alias_expansion == 16);
    ConfigTree zero;
    zero.Set("tosca.max_alias_expansion", "0");
    CHECK_FALSE(EngineOptionsFromConfig(zero));
}

}  // namespace
}  // namespace orch::tosca
