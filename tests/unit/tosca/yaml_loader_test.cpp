#include "yaml/loader.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace orch::tosca {
namespace {

struct Loaded {
    yaml::Document doc;
    std::vector<Diagnostic> diagnostics;
};

Loaded Load(const std::string& text, yaml::LoadLimits limits = {}) {
    DiagSink sink;
    yaml::Document doc = yaml::LoadYaml(text, "doc.yaml", limits, sink);
    return {std::move(doc), sink.Take()};
}

bool Mentions(const std::vector<Diagnostic>& diagnostics, const std::string& text) {
    for (const auto& d : diagnostics) {
        if (d.message.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

TEST_CASE("loader keeps 1-based line and column for every node", "[tosca][yaml]") {
    const auto loaded = Load("a: 1\nb:\n  c: [x, 'y']\n");
    REQUIRE(loaded.doc.root != nullptr);
    REQUIRE(loaded.diagnostics.empty());
    const yaml::Node* b = loaded.doc.root->Find("b");
    REQUIRE(b != nullptr);
    const yaml::Node* c = b->Find("c");
    REQUIRE(c->IsSequence());
    CHECK(c->mark.line == 3);
    CHECK(c->mark.column == 6);
    CHECK(c->items[1]->mark.line == 3);
    CHECK(c->items[1]->mark.column == 10);
    CHECK(c->items[0]->plain);
    CHECK_FALSE(c->items[1]->plain);  // quoted: always a string
}

TEST_CASE("loader resolves YAML scalar types from plain text only", "[tosca][yaml]") {
    const auto loaded = Load("i: 12\nf: 1.5\nb: yes\nq: '12'\nn: ~\ns: 20.04.1\nh: 0x1F\n");
    const yaml::Node& root = *loaded.doc.root;
    CHECK(yaml::ResolveScalar(*root.Find("i")) == yaml::ScalarType::kInt);
    CHECK(yaml::ResolveScalar(*root.Find("f")) == yaml::ScalarType::kFloat);
    CHECK(yaml::ResolveScalar(*root.Find("b")) == yaml::ScalarType::kBool);
    CHECK(yaml::ResolveScalar(*root.Find("q")) == yaml::ScalarType::kString);
    CHECK(yaml::ResolveScalar(*root.Find("n")) == yaml::ScalarType::kNull);
    CHECK(yaml::ResolveScalar(*root.Find("s")) == yaml::ScalarType::kString);
    CHECK(yaml::ToJson(*root.Find("h")) == 31);
    CHECK(yaml::ToJson(root) == Json::parse(R"({"i":12,"f":1.5,"b":true,"q":"12","n":null,"s":"20.04.1","h":31})"));
}

TEST_CASE("duplicate keys are a warning naming both places, the last value wins", "[tosca][yaml]") {
    const auto loaded = Load("a: 1\nb: 2\na: 3\n");
    REQUIRE(loaded.doc.root != nullptr);
    REQUIRE(loaded.diagnostics.size() == 1);
    const Diagnostic& d = loaded.diagnostics.front();
    CHECK(d.severity == Severity::kWarning);
    CHECK(d.code == DiagnosticCode::kDuplicateKey);
    CHECK(d.line == 3);
    CHECK(d.message.find("first at 1:1") != std::string::npos);
    CHECK(loaded.doc.root->Find("a")->text == "3");
    CHECK(loaded.doc.root->entries.size() == 2);
}

TEST_CASE("duplicate keys are found in large mappings too", "[tosca][yaml]") {
    std::string text;
    for (int i = 0; i < 200; ++i) {
        text += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
    }
    text += "k7: again\n";
    const auto loaded = Load(text);
    REQUIRE(loaded.diagnostics.size() == 1);
    CHECK(loaded.diagnostics.front().code == DiagnosticCode::kDuplicateKey);
    CHECK(loaded.doc.root->Find("k7")->text == "again");
    CHECK(loaded.doc.root->entries.size() == 200);
}

TEST_CASE("billion laughs is stopped by the expanded node limit", "[tosca][yaml][limits]") {
    std::string text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'j'; ++c) {
        text += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 9; ++i) {
            text += std::string(i ? "," : "") + "*" + prev;
        }
        text += "]\n";
        prev = c;
    }
    // The alias expansion budget (yaml_alias_budget_test.cpp) would stop it sooner: set it aside.
    yaml::LoadLimits node_limit_only;
    node_limit_only.max_alias_expansion = 1'000'000;
    const auto loaded = Load(text, node_limit_only);
    CHECK(loaded.doc.root == nullptr);
    REQUIRE(loaded.diagnostics.size() == 1);
    CHECK(loaded.diagnostics.front().code == DiagnosticCode::kLimitExceeded);
    CHECK(Mentions(loaded.diagnostics, "aliases counted as what they expand to"));
    CHECK(Mentions(Load(text).diagnostics, "aliases expand the document"));
    CHECK(loaded.doc.arena->node_count() < 1000);  // nothing was expanded in memory
}

TEST_CASE("small alias use is fine and shares the node", "[tosca][yaml]") {
    const auto loaded = Load("base: &b {cpus: 2}\nx: *b\ny: *b\n");
    REQUIRE(loaded.doc.root != nullptr);
    CHECK(loaded.diagnostics.empty());
    CHECK(loaded.doc.root->Find("x") == loaded.doc.root->Find("y"));
    CHECK(yaml::ToJson(*loaded.doc.root->Find("y")) == Json::parse(R"({"cpus":2})"));
}

TEST_CASE("a recursive alias is an error, not a loop", "[tosca][yaml][limits]") {
    const auto loaded = Load("a: &x [1, *x]\n");
    CHECK(loaded.doc.root == nullptr);
    CHECK(Mentions(loaded.diagnostics, "recursive alias"));
}

TEST_CASE("10k-deep nesting is refused at the depth limit without exhausting the stack", "[tosca][yaml][limits]") {
    const std::string flow = std::string(10'000, '[') + std::string(10'000, ']');
    const auto loaded_flow = Load(flow);
    CHECK(loaded_flow.doc.root == nullptr);
    CHECK(Mentions(loaded_flow.diagnostics, "nests deeper than 64 levels"));

    std::string block;
    for (int i = 0; i < 10'000; ++i) {
        block += "- ";
    }
    const auto loaded_block = Load(block + "x\n");
    CHECK(loaded_block.doc.root == nullptr);
    CHECK(Mentions(loaded_block.diagnostics, "nests deeper"));

    std::string indented;
    for (int i = 0; i < 1'000; ++i) {
        indented += std::string(static_cast<std::size_t>(i), ' ') + "a:\n";
    }
    const auto loaded_indented = Load(indented + std::string(1'000, ' ') + "b: 1\n");
    CHECK(loaded_indented.doc.root == nullptr);
    CHECK(Mentions(loaded_indented.diagnostics, "nests deeper"));

    std::string maps;
    for (int i = 0; i < 10'000; ++i) {
        maps += "{a: ";
    }
    const auto loaded_maps = Load(maps + "1" + std::string(10'000, '}'));
    CHECK(loaded_maps.doc.root == nullptr);
    CHECK(Mentions(loaded_maps.diagnostics, "nests deeper"));
}

TEST_CASE("size, node-count and depth limits are configurable", "[tosca][yaml][limits]") {
    CHECK(Mentions(Load("a: 123456789\n", {10, 64, 1000}).diagnostics, "more than the limit of 10"));
    CHECK(Mentions(Load("[1, 2, 3, 4, 5]", {1000, 64, 4}).diagnostics, "more than 4 YAML nodes"));
    CHECK(Mentions(Load("a: {b: {c: 1}}", {1000, 2, 100}).diagnostics, "deeper than 2 levels"));
    CHECK(Load("a: {b: {c: 1}}", {1000, 3, 100}).diagnostics.empty());
}

TEST_CASE(
    "syntax errors, empty documents, several documents and bad UTF-8 are errors with positions", "[tosca][yaml]"
) {
    const auto syntax = Load("a: [1, 2\nb: c\n");
    CHECK(syntax.doc.root == nullptr);
    REQUIRE(!syntax.diagnostics.empty());
    CHECK(syntax.diagnostics.front().code == DiagnosticCode::kYamlSyntax);
    CHECK(syntax.diagnostics.front().line > 0);

    CHECK(Mentions(Load("").diagnostics, "empty"));
    CHECK(Mentions(Load("# only a comment\n").diagnostics, "empty"));
    const auto two = Load("a: 1\n---\nb: 2\n");
    CHECK(two.doc.root == nullptr);
    CHECK(Mentions(two.diagnostics, "second YAML document"));
    CHECK(Mentions(Load("a: \"\xff\xfe\"\n").diagnostics, "not valid UTF-8 (byte offset 4)"));
    CHECK(Mentions(Load("? [a, b]\n: 1\n").diagnostics, "a mapping key is a collection"));
    // Escapes cannot smuggle invalid UTF-8 in either: yaml-cpp refuses surrogates.
    CHECK(Mentions(Load("a: \"\\uD800\"\n").diagnostics, "invalid unicode"));
    CHECK(Load("a: \"caf\\u00e9\"\n").diagnostics.empty());
}

TEST_CASE("FindInvalidUtf8 accepts UTF-8 and rejects overlong and surrogate forms", "[tosca][yaml]") {
    CHECK(yaml::FindInvalidUtf8("plain ascii") == std::string_view::npos);
    CHECK(yaml::FindInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == std::string_view::npos);
    CHECK(yaml::FindInvalidUtf8("a\xc0\xaf") == 1);       // overlong '/'
    CHECK(yaml::FindInvalidUtf8("ab\xed\xa0\x80") == 2);  // surrogate
    CHECK(yaml::FindInvalidUtf8("\xe2\x82") == 0);        // truncated
}

}  // namespace
}  // namespace orch::tosca
