#include "types/definition_parser.hpp"
#include "types/normative.hpp"
#include "values/value_checker.hpp"
#include "yaml/loader.hpp"

#include <catch2/catch.hpp>

namespace orch::tosca {
namespace {

/// Checks `value` (YAML) against the property definition `def` (YAML flow mapping).
struct Result {
    Json json;
    std::vector<Diagnostic> diagnostics;
    bool ok() const { return !HasErrors(diagnostics); }
    std::string first() const { return diagnostics.empty() ? "" : diagnostics.front().message; }
};

Result CheckValue(const std::string& def, const std::string& value, LiteralTyping typing = LiteralTyping::kTextual) {
    DiagSink sink;
    const yaml::Document def_doc = yaml::LoadYaml("p: " + def + "\n", "def.yaml", {}, sink);
    const yaml::Document value_doc = yaml::LoadYaml("v: " + value + "\n", "value.yaml", {}, sink);
    REQUIRE(def_doc.root != nullptr);
    REQUIRE(value_doc.root != nullptr);
    GrammarContext ctx{sink, true};
    auto parsed = ParsePropertyDef(def_doc.root->entries.front(), DefinitionKind::kProperty, Path().Key("p"), ctx);
    REQUIRE(parsed.has_value());
    REQUIRE_FALSE(HasErrors(sink.Take()));
    const auto types = NormativeTypes("tosca_simple_yaml_1_3");
    ValueChecker checker(*types, typing, sink);
    Json json = checker.Check(*value_doc.root->Find("v"), parsed->schema, Path().Key("v"));
    return {std::move(json), sink.Take()};
}

TEST_CASE("primitive typing: compatibility mode reads scalars as text per TOSCA type", "[tosca][values]") {
    CHECK(CheckValue("{type: float}", "1").json == 1.0);         // an integer literal for a float
    CHECK(CheckValue("{type: string}", "True").json == "True");  // a YAML boolean for a string
    CHECK(CheckValue("{type: integer}", "'8'").json == 8);       // quoted digits
    CHECK(CheckValue("{type: boolean}", "'yes'").json == true);
    CHECK(CheckValue("{type: boolean}", "FALSE").json == false);
    CHECK(CheckValue("{type: integer}", "two").first() == "\"two\" is not an integer");
    CHECK(CheckValue("{type: boolean}", "maybe").first().find("is not a boolean") != std::string::npos);
    CHECK(CheckValue("{type: float}", "1.5.2").first() == "\"1.5.2\" is not a float");
}

TEST_CASE(
    "primitive typing: strict mode uses the YAML types (1 is not a float, true is not a string)", "[tosca][values]"
) {
    CHECK(
        CheckValue("{type: float}", "1", LiteralTyping::kYamlTyped).first().find("\"1\" is not a float") !=
        std::string::npos
    );
    CHECK(CheckValue("{type: float}", "1.0", LiteralTyping::kYamlTyped).ok());
    CHECK(
        CheckValue("{type: string}", "true", LiteralTyping::kYamlTyped)
            .first()
            .find("YAML reads it as a boolean; quote it") != std::string::npos
    );
    CHECK(CheckValue("{type: string}", "'true'", LiteralTyping::kYamlTyped).ok());
    CHECK(CheckValue("{type: integer}", "'8'", LiteralTyping::kYamlTyped).first() == "\"8\" is not an integer");
}

TEST_CASE("timestamp, version and range values", "[tosca][values]") {
    CHECK(CheckValue("{type: timestamp}", "2001-12-14t21:59:43.10-05:00").ok());
    CHECK(CheckValue("{type: timestamp}", "2001-12-14 21:59:43.10 -5").ok());
    CHECK(CheckValue("{type: timestamp}", "2002-12-14").ok());
    CHECK(CheckValue("{type: timestamp}", "2002-02-30").first().find("is not a timestamp") != std::string::npos);
    CHECK(CheckValue("{type: version}", "1.10").json == "1.10");  // the source text, not the float 1.1
    CHECK(CheckValue("{type: version}", "2.0.1.alpha-3").ok());
    CHECK(CheckValue("{type: version}", "1.x").first().find("is not a version") != std::string::npos);
    CHECK(CheckValue("{type: range}", "[1, UNBOUNDED]").json == Json::parse(R"([1, "UNBOUNDED"])"));
    CHECK(CheckValue("{type: range}", "[5, 1]").first().find("max is lower than min") != std::string::npos);
    CHECK(CheckValue("{type: range}", "'1,5'").ok());  // the original's "a,b" form (compatibility)
    CHECK_FALSE(CheckValue("{type: range}", "'1,5'", LiteralTyping::kYamlTyped).ok());
}

TEST_CASE("constraint equal", "[tosca][constraints]") {
    CHECK(CheckValue("{type: string, constraints: [{equal: PUBLIC}]}", "PUBLIC").ok());
    CHECK(
        CheckValue("{type: string, constraints: [{equal: PUBLIC}]}", "PRIVATE").first() ==
        "\"PRIVATE\" must equal \"PUBLIC\""
    );
    CHECK(CheckValue("{type: scalar-unit.size, constraints: [{equal: 4 GB}]}", "4000 MB").ok());  // compared normalised
}

TEST_CASE("constraints greater_than, greater_or_equal, less_than, less_or_equal", "[tosca][constraints]") {
    CHECK(CheckValue("{type: integer, constraints: [{greater_than: 1}]}", "2").ok());
    CHECK(
        CheckValue("{type: integer, constraints: [{greater_than: 1}]}", "1").first() ==
        "\"1\" must be greater than \"1\" (greater_than)"
    );
    CHECK(CheckValue("{type: float, constraints: [{greater_or_equal: 0.5}]}", "0.5").ok());
    CHECK(
        CheckValue("{type: float, constraints: [{greater_or_equal: 0.5}]}", "0.4").first().find("must be at least") !=
        std::string::npos
    );
    CHECK(
        CheckValue("{type: integer, constraints: [{less_than: 10}]}", "10").first().find("must be less than") !=
        std::string::npos
    );
    CHECK(CheckValue("{type: integer, constraints: [{less_or_equal: 10}]}", "10").ok());
    CHECK(
        CheckValue("{type: scalar-unit.size, constraints: [{greater_or_equal: 1 GB}]}", "512 MB")
            .first()
            .find("must be at least \"1 GB\"") != std::string::npos
    );
    CHECK(CheckValue("{type: scalar-unit.time, constraints: [{less_than: 1 h}]}", "59 m").ok());
    CHECK(
        CheckValue("{type: version, constraints: [{greater_or_equal: 1.10}]}", "1.9")
            .first()
            .find("must be at least") != std::string::npos
    );
    CHECK(CheckValue("{type: timestamp, constraints: [{less_than: 2020-01-01}]}", "2019-12-31T23:59:59Z").ok());
}

TEST_CASE("constraint in_range, also for range values", "[tosca][constraints]") {
    CHECK(CheckValue("{type: integer, constraints: [{in_range: [1, 65535]}]}", "1").ok());
    CHECK(
        CheckValue("{type: integer, constraints: [{in_range: [1, 65535]}]}", "0").first() ==
        "\"0\" is out of the range [1, 65535] (in_range)"
    );
    CHECK(CheckValue("{type: integer, constraints: [{in_range: [1, UNBOUNDED]}]}", "99999999").ok());
    CHECK(
        CheckValue("{type: scalar-unit.size, constraints: [{in_range: [1 GB, 100 GB]}]}", "101 GB")
            .first()
            .find("out of the range") != std::string::npos
    );
    CHECK(CheckValue("{type: range, constraints: [{in_range: [1, 65535]}]}", "[1, 65535]").ok());
    CHECK(
        CheckValue("{type: range, constraints: [{in_range: [1, 65535]}]}", "[0, 10]")
            .first()
            .find("is not within the range") != std::string::npos
    );
}

TEST_CASE("constraint valid_values", "[tosca][constraints]") {
    CHECK(CheckValue("{type: integer, constraints: [{valid_values: [1, 2, 4, 8]}]}", "4").ok());
    CHECK(
        CheckValue("{type: integer, constraints: [{valid_values: [1, 2, 4, 8]}]}", "3").first() ==
        "\"3\" is not one of the valid values [1, 2, 4, 8]"
    );
    // The INDIGO idiom: a string input with valid_values [false, true].
    CHECK(CheckValue("{type: string, constraints: [{valid_values: [false, true]}]}", "false").ok());
}

TEST_CASE("constraints length, min_length, max_length on strings, lists and maps", "[tosca][constraints]") {
    CHECK(CheckValue("{type: string, constraints: [{length: 3}]}", "abc").ok());
    CHECK(CheckValue("{type: string, constraints: [{length: 3}]}", "\"\u00e9t\u00e9\"").ok()
    );  // code points, not bytes
    CHECK(CheckValue("{type: string, constraints: [{length: 3}]}", "ab").first() == "\"ab\" has length 2; length is 3");
    CHECK(
        CheckValue("{type: string, constraints: [{min_length: 1}]}", "''").first().find("min_length is 1") !=
        std::string::npos
    );
    CHECK(
        CheckValue("{type: list, entry_schema: string, constraints: [{max_length: 2}]}", "[a, b, c]")
            .first()
            .find("max_length is 2") != std::string::npos
    );
    CHECK(
        CheckValue("{type: map, entry_schema: {type: integer}, constraints: [{min_length: 1}]}", "{}")
            .first()
            .find("min_length is 1") != std::string::npos
    );
}

TEST_CASE("constraint pattern matches the whole value", "[tosca][constraints]") {
    const std::string def = "{type: string, constraints: [{pattern: '[a-z]+(-[a-z0-9]+)*'}]}";
    CHECK(CheckValue(def, "my-app-2").ok());
    CHECK(CheckValue(def, "My-app").first() == "\"My-app\" does not match the pattern \"[a-z]+(-[a-z0-9]+)*\"");
    CHECK(CheckValue(def, "app-").first().find("does not match") != std::string::npos);
}

TEST_CASE("list and map entry schemas and complex data types are checked recursively", "[tosca][values]") {
    CHECK(CheckValue("{type: list, entry_schema: {type: integer}}", "[1, x, 3]").first() == "\"x\" is not an integer");
    const auto port = CheckValue("{type: tosca.datatypes.network.PortSpec}", "{source: 8080}");
    CHECK(port.ok());
    CHECK(port.json == Json::parse(R"({"protocol":"tcp","source":8080})"));  // defaults filled in
    CHECK(
        CheckValue("{type: tosca.datatypes.network.PortSpec}", "{source: 0}").first() ==
        "\"0\" is out of the range [1, 65535] (in_range)"
    );
    CHECK(
        CheckValue("{type: tosca.datatypes.network.PortSpec}", "{source: 80, colour: red}")
            .first()
            .find("unknown field 'colour'") != std::string::npos
    );
    CHECK(
        CheckValue("{type: tosca.datatypes.Credential}", "{user: u}").first().find("required field 'token'") !=
        std::string::npos
    );
    CHECK(
        CheckValue("{type: map, entry_schema: {type: tosca.datatypes.network.PortSpec}}", "{http: {protocol: sctp}}")
            .first()
            .find("valid values") != std::string::npos
    );
    CHECK(
        CheckValue("{type: PortDef}", "70000").first().find("out of the range") != std::string::npos
    );  // normative short name
    CHECK(CheckValue("{type: no.such.Type}", "1").first() == "unknown data type no.such.Type");
}

TEST_CASE("error paths point into nested values", "[tosca][values]") {
    const auto result = CheckValue(
        "{type: list, entry_schema: {type: tosca.datatypes.network.PortSpec}}", "[{source: 80}, {source: 99999}]"
    );
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics.front().path == "v[1].source");
    CHECK(result.diagnostics.front().line == 1);
    CHECK(result.diagnostics.front().column == 28);
    CHECK(result.diagnostics.front().file == "value.yaml");
}

}  // namespace
}  // namespace orch::tosca
