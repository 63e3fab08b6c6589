// Differential tests of the fast YAML loader: on every text it accepts, its nodes (kind, text,
// plain flag, line, column, subtree size) and findings must be exactly those of the yaml-cpp
// path; everything else it must decline, so that LoadYaml falls back to yaml-cpp.
#include "tosca_test_util.hpp"
#include "yaml/loader.hpp"
#include "yaml/tree_diff.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace orch::tosca {
namespace {

namespace fs = std::filesystem;

struct Outcome {
    std::optional<yaml::Document> doc;
    std::vector<Diagnostic> diagnostics;
};

Outcome Load(yaml::YamlParser parser, std::string_view text, yaml::LoadLimits limits = {}) {
    DiagSink sink;
    Outcome out;
    out.doc = yaml::LoadYamlWith(parser, text, "doc.yaml", limits, sink);
    out.diagnostics = sink.Take();
    return out;
}

/// Loads `text` with both parsers. True when the fast loader accepted it, in which case the
/// two results must be identical; false when it declined.
bool FastAgrees(std::string_view text, yaml::LoadLimits limits = {}) {
    const Outcome fast = Load(yaml::YamlParser::kFastOnly, text, limits);
    if (!fast.doc) {
        CHECK(fast.diagnostics.empty());  // declining leaves no trace
        return false;
    }
    const Outcome reference = Load(yaml::YamlParser::kYamlCpp, text, limits);
    INFO("text: " << text);
    CHECK(
        yaml::FirstDifference({reference.doc->root, reference.diagnostics}, {fast.doc->root, fast.diagnostics}) == ""
    );
    return true;
}

/// The fast loader's value of `key` in the root mapping of `text` (which it must accept).
std::string FastText(std::string_view text, std::string_view key) {
    const Outcome fast = Load(yaml::YamlParser::kFastOnly, text);
    REQUIRE(fast.doc);
    REQUIRE(fast.doc->root != nullptr);
    const yaml::Node* value = fast.doc->root->Find(key);
    REQUIRE(value != nullptr);
    return value->text;
}

bool Mentions(const std::vector<Diagnostic>& diagnostics, const std::string& text) {
    for (const auto& d : diagnostics) {
        if (d.message.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string ReadFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

TEST_CASE(
    "every corpus file - the fast loader declines or builds the tree yaml-cpp builds", "[tosca][yaml][differential]"
) {
    std::size_t files = 0;
    std::size_t fast = 0;
    std::vector<std::string> declined;
    for (const auto& entry : fs::recursive_directory_iterator(test::CorpusDir())) {
        const std::string ext = entry.path().extension().string();
        if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml")) {
            continue;
        }
        ++files;
        INFO("file: " << entry.path().string());
        if (FastAgrees(ReadFile(entry.path()))) {
            ++fast;
        } else {
            declined.push_back(fs::relative(entry.path(), test::CorpusDir()).string());
        }
    }
    std::cout << "yaml differential: " << fast << " of " << files << " corpus files took the fast path\n";
    for (const auto& name : declined) {
        std::cout << "  declined (yaml-cpp path): " << name << "\n";
    }
    REQUIRE(files > 100);
    CHECK(fast * 10 >= files * 9);  // most must
}

TEST_CASE("quoted scalars and escapes", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("a: 'it''s # not a comment'\nb: \"tab\\there \\\"q\\\" \\\\ \\/\"\nc: ''\nd: \"\"\n"));
    CHECK(FastAgrees("e: \"\\u00e9\\x41\\U0001F600\\L\\P\\0\\a\\b\\v\\f\\r\\e\\ \\t\"\n"));
    CHECK(FastAgrees("\"quoted key\": 1\n'single key' : 2\n\"k\":  \"v\"   # trailing\n"));
    CHECK(FastText("a: 'it''s'\n", "a") == "it's");
    CHECK(FastText("a: \"caf\\u00e9 \\x41\\\"\"\n", "a") == "caf\xC3\xA9 A\"");
    CHECK(FastText("a: \"with\ttab\"\n", "a") == "with\ttab");
    // yaml-cpp refuses these: the fast loader must leave the error to it.
    CHECK_FALSE(FastAgrees("a: \"\\uD800\"\n"));
    CHECK_FALSE(FastAgrees("a: \"\\N\"\n"));  // yaml-cpp 0.7 makes a lone byte of it
    CHECK_FALSE(FastAgrees("a: \"\\q\"\n"));
    CHECK_FALSE(FastAgrees("a: \"\\x4\"\n"));
    CHECK_FALSE(FastAgrees("a: \"unterminated\n"));
    // Multi-line quoted scalars are folded by yaml-cpp only.
    CHECK_FALSE(FastAgrees("a: \"two\n  lines\"\n"));
    CHECK_FALSE(FastAgrees("a: 'two\n  lines'\n"));
}

TEST_CASE("plain scalars: comments, colons, continuation lines and nulls", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("a: b#c\nurl: http://x:80/p?q=1#frag\nc: d # comment\ne: -1\nf: -x\ng: ::1\nh: a:b\n"));
    CHECK(FastAgrees("a: one\n  two\n\n  three\n\n\n   four   \nb: next\n"));
    CHECK(FastText("a: one\n  two\n\n  three\n\n\n   four   \nb: next\n", "a") == "one two\nthree\n\nfour");
    CHECK(FastAgrees("list:\n- first\n  continued\n- second\nk:\n  own line\n  value\n"));
    CHECK(FastAgrees("a: ~\nb: null\nc: Null\nd: NULL\ne: nulls\nf:\ng: # comment\n"));
    CHECK(FastAgrees("a: text\n  # a comment line ends the scalar\nb: 1\n"));
    CHECK_FALSE(FastAgrees("a: b: c\n"));
    CHECK_FALSE(FastAgrees("a: one\n  two: three\n"));
    CHECK_FALSE(FastAgrees("a: one\n  - two\n"));
}

TEST_CASE("block scalars: literal, folded, chomping and indentation indicators", "[tosca][yaml][differential]") {
    const std::string body = "  line one\n  line two\n\n    more indented\n  last\n\n\n";
    for (const std::string indicator : {"|", "|-", "|+", ">", ">-", ">+", "|2", ">2", "|-2", "|2+", ">+2"}) {
        INFO("indicator " << indicator);
        CHECK(FastAgrees("a: " + indicator + "\n" + body + "b: 1\n"));
        CHECK(FastAgrees("a: " + indicator + "\n" + body));
        CHECK(FastAgrees("a: " + indicator + "  # comment\n" + body.substr(0, body.size() - 3)));
        CHECK(FastAgrees("- " + indicator + "\n" + body + "- x\n"));
        std::string nested = "a:\n  b: " + indicator + "\n";
        std::istringstream lines(body);
        for (std::string line; std::getline(lines, line);) {
            nested += (line.empty() ? "" : "  ") + line + "\n";
        }
        CHECK(FastAgrees(nested + "  c: 1\n"));
    }
    CHECK(FastText("a: |\n  x\n  y\n\n\nb: 1\n", "a") == "x\ny\n");
    CHECK(FastText("a: |-\n  x\n  y\n\nb: 1\n", "a") == "x\ny");
    CHECK(FastText("a: |+\n  x\n\n\nb: 1\n", "a") == "x\n\n\n");
    CHECK(FastText("a: >\n  x\n  y\n\n  z\nb: 1\n", "a") == "x y\nz\n");
    CHECK(FastText("a: |\n  no final break", "a") == "no final break");
    CHECK(FastAgrees("a: >\n\n\n  starts after empty lines\n   more\n  back\nb: |\n\nc: >-\n"));
    CHECK(FastAgrees("a: |\n  tab\tinside and\n  \ttab after the indentation\n"));
    CHECK(FastAgrees("a: >\n  x\n  \n   \n  y\n"));
    CHECK_FALSE(FastAgrees("a: |0\n  x\n"));
    CHECK(FastAgrees("a: |\n \tx\n"));              // past the indentation a tab is text
    CHECK_FALSE(FastAgrees("a: |\n\tx\n"));         // a tab in the indentation
    CHECK_FALSE(FastAgrees("a: |\n     \n  x\n"));  // an empty line wider than the text
}

TEST_CASE("flow collections", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("a: [1, 'two', \"three\", {x: 1, y: [a, b]}, ]\nb: {}\nc: []\nd: {k: v,}\n"));
    CHECK(FastAgrees("a: [ one,\n     two ]   # comment\nb: {x: [1,\n  2], \"y\":3, z: http://h:1/}\n"));
    CHECK(FastAgrees("a: {k: , m: 1, n:}\nb: [~, null, x y]\n"));
    CHECK(FastAgrees("[a, {b: c}]\n"));
    CHECK(FastAgrees("{a: 1, b: [2]}"));
    CHECK_FALSE(FastAgrees("a: [a, , b]\n"));  // an empty entry
    CHECK(FastAgrees("v: { concat: [ 'http://', get_attribute: [ s, public_address, 0 ], ':8080' ] }\n"));
    CHECK(FastAgrees("a: [k: v, \"q\": 1, 'r':2, n: , m:]\nb: [x: [y: z]]\n"));
    CHECK_FALSE(FastAgrees("a: {k, m: 1}\n"));  // a key without ':'
    CHECK_FALSE(FastAgrees("a: [one\n  two]\n"));
    CHECK_FALSE(FastAgrees("a: [1, 2\nb: 3\n"));
    CHECK_FALSE(FastAgrees("[a, b]: c\n"));
}

TEST_CASE("comments, empty values and where yaml-cpp marks implicit nulls", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("# head\n\na: 1 # c\n  # indented comment\n# col 0\nb:   # c\n\n  c: 'x' #c\n  d: [1] # c\n"));
    CHECK(FastAgrees("a:\n  b:\n  c:\nd:\n"));
    CHECK(FastAgrees("a:\n  b:\n  c:\nd:"));
    CHECK(FastAgrees("a:\n  b:\n  c:\n   "));
    CHECK(FastAgrees("a:\n  b:\n  c:\n  # trailing comment"));
    CHECK(FastAgrees("a:\n- \n-\n- x\n-\nb:\n  -\n  - # c\n"));
    CHECK(FastAgrees("seq:\n  -\n"));
    CHECK(FastAgrees("seq:\n  -"));
    CHECK(FastAgrees("- - a\n  - b\n- c: 1\n  d:\n- - - deep\n"));
    CHECK(FastAgrees("a:\n- x\n- y: 1\n  z: 2\nb: 3\n"));
}

TEST_CASE("anchors and aliases share nodes, and the alias expansion limit holds", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("base: &b {cpus: 2}\nx: *b\ny: *b\n"));
    CHECK(FastAgrees("a: &x\n  k: v\n  l: [1, 2]\nb: *x\nc: &s text\nd: *s\ne: &e\nf: *e\n"));
    CHECK(FastAgrees("a: &l\n- 1\n- 2\nb: [*l, *l]\nc: {k: *l}\nd: &x one\ne: &x two\nf: *x\n"));
    {
        const Outcome fast = Load(yaml::YamlParser::kFastOnly, "base: &b {cpus: 2}\nx: *b\n");
        REQUIRE(fast.doc);
        CHECK(fast.doc->root->Find("x") == fast.doc->root->Find("base"));
    }
    std::string bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'j'; ++c) {
        bomb += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 9; ++i) {
            bomb += std::string(i ? "," : "") + "*" + prev;
        }
        bomb += "]\n";
        prev = c;
    }
    CHECK_FALSE(FastAgrees(bomb));  // the fast loader stops at the limit and leaves the report to yaml-cpp
    const Outcome loaded = Load(yaml::YamlParser::kAuto, bomb);
    CHECK(loaded.doc->root == nullptr);
    CHECK(Mentions(loaded.diagnostics, "aliases expand the document"));
    yaml::LoadLimits node_limit_only;  // the node limit alone stops it too
    node_limit_only.max_alias_expansion = 1'000'000;
    CHECK_FALSE(FastAgrees(bomb, node_limit_only));
    CHECK(Mentions(
        Load(yaml::YamlParser::kAuto, bomb, node_limit_only).diagnostics, "aliases counted as what they expand to"
    ));
    CHECK_FALSE(FastAgrees("a: &x [1, *x]\n"));  // recursive
    CHECK_FALSE(FastAgrees("a: *unknown\n"));
    CHECK_FALSE(FastAgrees("- &x a\n"));   // anchors after "- " shift yaml-cpp's indentation
    CHECK_FALSE(FastAgrees("&x a: 1\n"));  // an anchored key
    CHECK_FALSE(FastAgrees("a: &x b: 1\n"));
}

TEST_CASE("depth, node-count and size limits are the same on both paths", "[tosca][yaml][differential]") {
    const std::string deep_flow = std::string(100, '[') + std::string(100, ']');
    CHECK_FALSE(FastAgrees(deep_flow));
    CHECK(Mentions(Load(yaml::YamlParser::kAuto, deep_flow).diagnostics, "nests deeper than 64 levels"));
    std::string deep_block;
    for (int i = 0; i < 100; ++i) {
        deep_block += std::string(static_cast<std::size_t>(i), ' ') + "a:\n";
    }
    CHECK_FALSE(FastAgrees(deep_block));
    CHECK(Mentions(Load(yaml::YamlParser::kAuto, deep_block).diagnostics, "nests deeper"));
    CHECK(FastAgrees("a: {b: {c: 1}}", {1000, 3, 100}));
    CHECK_FALSE(FastAgrees("a: {b: {c: 1}}", {1000, 2, 100}));
    CHECK(Mentions(Load(yaml::YamlParser::kAuto, "a: {b: {c: 1}}", {1000, 2, 100}).diagnostics, "deeper than 2"));
    CHECK_FALSE(FastAgrees("[1, 2, 3, 4, 5]", {1000, 64, 4}));
    CHECK(Mentions(Load(yaml::YamlParser::kAuto, "[1, 2, 3, 4, 5]", {1000, 64, 4}).diagnostics, "more than 4 YAML"));
    CHECK_FALSE(FastAgrees("a: 123456789\n", {10, 64, 1000}));
    CHECK(Mentions(Load(yaml::YamlParser::kAuto, "a: 123456789\n", {10, 64, 1000}).diagnostics, "limit of 10"));
}

TEST_CASE("duplicate keys warn with both places on the fast path too", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("a: 1\nb: 2\na: 3\nc:\n  x: 1\n  x: 2\n"));
    std::string large;
    for (int i = 0; i < 200; ++i) {
        large += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
    }
    CHECK(FastAgrees(large + "k7: again\nk150: again\n"));
    const Outcome fast = Load(yaml::YamlParser::kFastOnly, "a: 1\nb: 2\na: 3\n");
    REQUIRE(fast.diagnostics.size() == 1);
    CHECK(fast.diagnostics.front().code == DiagnosticCode::kDuplicateKey);
    CHECK(fast.diagnostics.front().line == 3);
    CHECK(Mentions(fast.diagnostics, "first at 1:1"));
}

TEST_CASE("tabs, CRLF line breaks and a byte order mark", "[tosca][yaml][differential]") {
    CHECK(FastAgrees("a: \"x\ty\"\nb: |\n  \tz\n# \tcomment\n"));
    CHECK_FALSE(FastAgrees("a:\tb\n"));
    CHECK_FALSE(FastAgrees("a:\n\tb: 1\n"));
    CHECK_FALSE(FastAgrees("a: b\tc\n"));
    CHECK(FastAgrees("a: 1\r\nb:\r\n  - x\r\n  - 'y'\r\nc: |\r\n  l1\r\n  l2\r\n\r\nd: >-\r\n  f1\r\n  f2\r\ne:\r\n"));
    CHECK(FastText("c: |\r\n  l1\r\n  l2\r\n", "c") == "l1\nl2\n");
    CHECK_FALSE(FastAgrees("a: 1\rb: 2\n"));  // a lone CR
    CHECK(
        FastAgrees("\xEF\xBB\xBF"
                   "a: 1\nb: [x, y]\n")
    );
    CHECK(
        FastAgrees("\xEF\xBB\xBF"
                   "- a\n- b\n")
    );
}

TEST_CASE(
    "the fast loader leaves tags, complex keys and several documents to yaml-cpp", "[tosca][yaml][differential]"
) {
    CHECK_FALSE(FastAgrees("a: !!str 1\n"));
    CHECK_FALSE(FastAgrees("? a\n: b\n"));
    CHECK_FALSE(FastAgrees("a: 1\n---\nb: 2\n"));
    CHECK_FALSE(FastAgrees("a: 1\n...\n"));
    CHECK_FALSE(FastAgrees("%YAML 1.2\n---\na: 1\n"));
    CHECK_FALSE(FastAgrees("--- a: 1\n"));
    CHECK_FALSE(FastAgrees("just a scalar\n"));
    CHECK_FALSE(FastAgrees(""));
    CHECK_FALSE(FastAgrees("# only a comment\n"));
    CHECK_FALSE(FastAgrees("a: 1\n b: 2\n"));
    CHECK_FALSE(FastAgrees("a: @x\n"));
    CHECK(FastAgrees("---\na: 1\n"));
    CHECK(FastAgrees("--- # comment\n- 1\n"));
}

TEST_CASE("LoadYaml gives the same result whichever parser reads the text", "[tosca][yaml][differential]") {
    for (const std::string text : {"a: 1\nb: [x]\n", "a: !!str 1\nb: [x]\n", "a: [1\n"}) {
        const Outcome automatic = Load(yaml::YamlParser::kAuto, text);
        const Outcome reference = Load(yaml::YamlParser::kYamlCpp, text);
        INFO(text);
        CHECK(
            yaml::FirstDifference(
                {reference.doc->root, reference.diagnostics}, {automatic.doc->root, automatic.diagnostics}
            ) == ""
        );
    }
}

}  // namespace
}  // namespace orch::tosca
