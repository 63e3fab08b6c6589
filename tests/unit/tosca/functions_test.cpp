#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>

namespace orch::tosca {
namespace {

using test::Check;
using test::Dump;
using test::Find;

/// A normative-types-only template: a Compute `server` and the given extra nodes / outputs.
std::string Normative(const std::string& inputs, const std::string& server_caps, const std::string& rest = "") {
    return "tosca_definitions_version: tosca_simple_yaml_1_3\n"
           "topology_template:\n"
           "  inputs:\n" +
           (inputs.empty() ? std::string("    {}\n") : inputs) +
           "  node_templates:\n"
           "    server:\n"
           "      type: tosca.nodes.Compute\n"
           "      capabilities:\n"
           "        host:\n"
           "          properties:\n" +
           server_caps + rest;
}

const Json& HostProps(const TemplateCheck& check) {
    REQUIRE(check.spec.has_value());
    return check.spec->FindNode("server")->capabilities.at("host");
}

TEST_CASE("get_input takes the user's value, else the default, and is type-checked", "[tosca][functions]") {
    const std::string text = Normative(
        "    cpus: {type: integer, default: 2, constraints: [{valid_values: [1, 2, 4]}]}\n"
        "    mem: {type: scalar-unit.size, default: 2 GB}\n",
        "            num_cpus: { get_input: cpus }\n            mem_size: { get_input: mem }\n"
    );
    const auto defaults = Check(text, Json::object());
    INFO(Dump(defaults));
    CHECK(HostProps(defaults)["num_cpus"] == 2);
    CHECK(HostProps(defaults)["mem_size"] == "2 GB");
    CHECK(defaults.spec->inputs == Json::parse(R"({"cpus":2,"mem":"2 GB"})"));

    const auto given = Check(text, Json::parse(R"({"cpus": "4", "mem": "8 GiB"})"));
    INFO(Dump(given));
    CHECK(HostProps(given)["num_cpus"] == 4);
    CHECK(given.spec->nodes.front().resources.mem_mb == 8590u);

    const auto bad = Check(text, Json::parse(R"({"cpus": 3})"));
    const Diagnostic* d = Find(bad, "is not one of the valid values [1, 2, 4]");
    REQUIRE(d != nullptr);
    CHECK(d->code == DiagnosticCode::kInputValue);
    CHECK(d->path == "parameters.cpus");

    const auto wrong_type = Check(text, Json::parse(R"({"cpus": "many"})"));
    CHECK(Find(wrong_type, "\"many\" is not an integer", "parameters.cpus") != nullptr);
    // The property then gets a value of the wrong type: a warning in compatibility mode (the
    // original does not type-check computed values), an error in strict mode.
    CHECK(
        Find(wrong_type, "is not an integer", "capabilities.host.properties.num_cpus", Severity::kWarning) != nullptr
    );
    CHECK(
        Find(
            Check(text, Json::parse(R"({"cpus": "many"})"), Mode::kStrict),
            "is not an integer",
            "capabilities.host.properties.num_cpus"
        ) != nullptr
    );
}

TEST_CASE("get_input: unknown input, missing value, list form", "[tosca][functions]") {
    const auto unknown = Check(Normative("", "            num_cpus: { get_input: nope }\n"));
    const Diagnostic* d = Find(unknown, "No input with name nope defined in the template");
    REQUIRE(d != nullptr);
    CHECK(d->path == "topology_template.node_templates.server.capabilities.host.properties.num_cpus.get_input");
    CHECK(d->line == 11);
    CHECK(d->column == 36);

    const std::string optional =
        Normative("    cpus: {type: integer, required: false}\n", "            num_cpus: { get_input: cpus }\n");
    CHECK(Check(optional).valid());  // template alone: the caller will supply it
    CHECK(
        Find(
            Check(optional, Json::object()),
            "No input provided for <cpus> and no default value provided in the definition"
        ) != nullptr
    );

    const std::string indexed = Normative(
        "    sizes: {type: list, entry_schema: {type: integer}, default: [1, 2, 8]}\n",
        "            num_cpus: { get_input: [sizes, 2] }\n"
    );
    const auto list = Check(indexed, Json::object());
    INFO(Dump(list));
    CHECK(HostProps(list)["num_cpus"] == 8);
    CHECK(
        Find(
            Check(Normative("    c: {type: integer, default: 1}\n", "            num_cpus: { get_input: [c, c] }\n")),
            "get_input takes one input name"
        ) != nullptr
    );
}

TEST_CASE("get_property: own, capability, other node, HOST, nested index, unknown property", "[tosca][functions]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "topology_template:\n"
        "  node_templates:\n"
        "    db:\n"
        "      type: tosca.nodes.Database\n"
        "      properties:\n"
        "        name: accounts\n"
        "        user: { get_property: [SELF, name] }\n"
        "        port: { get_property: [HOST, port] }\n"
        "        password: { get_property: [server, os, distribution] }\n"
        "      requirements:\n"
        "        - host: dbms\n"
        "    dbms:\n"
        "      type: tosca.nodes.DBMS\n"
        "      properties:\n"
        "        port: 3306\n"
        "        root_password: { get_property: [server, endpoint, ports, ssh, source] }\n"
        "      requirements:\n"
        "        - host: server\n"
        "    server:\n"
        "      type: tosca.nodes.Compute\n"
        "      capabilities:\n"
        "        os: {properties: {distribution: ubuntu}}\n"
        "        endpoint: {properties: {ports: {ssh: {source: 22}}}}\n";
    const auto check = Check(text);
    INFO(Dump(check));
    REQUIRE(check.valid());
    const NodeSpec* db = check.spec->FindNode("db");
    CHECK(db->properties["user"] == "accounts");
    CHECK(db->properties["port"] == 3306);
    CHECK(db->properties["password"] == "ubuntu");
    CHECK(check.spec->FindNode("dbms")->properties["root_password"] == "22");

    const auto bad = Check(text + "  outputs:\n    x: {value: {get_property: [server, no_such_property]}}\n");
    const Diagnostic* d = Find(bad, "Property \"no_such_property\" was not found in node template \"server\"");
    REQUIRE(d != nullptr);
    CHECK(d->path == "topology_template.outputs.x.value.get_property");
    CHECK(
        Find(
            Check(text + "  outputs:\n    x: {value: {get_property: [SELF, name]}}\n"), "SELF cannot be used in outputs"
        ) != nullptr
    );
}

TEST_CASE("get_property cycles are reported, not followed forever", "[tosca][functions]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "topology_template:\n"
        "  node_templates:\n"
        "    a:\n"
        "      type: tosca.nodes.Database\n"
        "      properties:\n"
        "        user: { get_property: [b, user] }\n"
        "    b:\n"
        "      type: tosca.nodes.Database\n"
        "      properties:\n"
        "        user: { get_property: [a, user] }\n";
    const auto check = Check(text);
    CHECK(Find(check, "Circular reference between functions") != nullptr);
}

TEST_CASE("get_attribute is checked statically and kept for after deployment", "[tosca][functions]") {
    const std::string base = Normative("", "            num_cpus: 1\n");
    const auto ok = Check(base + "  outputs:\n    ip: {value: {get_attribute: [server, public_address]}}\n");
    INFO(Dump(ok));
    REQUIRE(ok.valid());
    REQUIRE(ok.spec->outputs.size() == 1);
    CHECK_FALSE(ok.spec->outputs.front().resolved);
    CHECK(ok.spec->outputs.front().value == Json::parse(R"({"get_attribute":["server","public_address"]})"));

    CHECK(
        Find(
            Check(base + "  outputs:\n    ip: {value: {get_attribute: [nobody, public_address]}}\n"),
            "Node template \"nobody\" was not found"
        ) != nullptr
    );
    CHECK(
        Find(
            Check(base + "  outputs:\n    ip: {value: {get_attribute: [HOST, public_address]}}\n"),
            "is not allowed in \"outputs\""
        ) != nullptr
    );
    // Unknown attribute: an error in strict mode, a warning in compatibility mode.
    const std::string unknown = base + "  outputs:\n    ip: {value: {get_attribute: [server, colour]}}\n";
    CHECK(Find(Check(unknown, std::nullopt, Mode::kStrict), "Attribute \"colour\" was not found") != nullptr);
    CHECK(Check(unknown).valid());
    CHECK(Find(Check(unknown), "Attribute \"colour\" was not found", "", Severity::kWarning) != nullptr);
    // Index into a string attribute (tosca.nodes.Compute public_address is a string).
    CHECK(
        Find(
            Check(
                base + "  outputs:\n    ip: {value: {get_attribute: [server, public_address, 0]}}\n",
                std::nullopt,
                Mode::kStrict
            ),
            "Unexpected attribute/index value \"0\""
        ) != nullptr
    );
    CHECK(
        Find(
            Check(base + "  outputs:\n    ip: {value: {get_attribute: [server]}}\n"),
            "Illegal arguments for function \"get_attribute\""
        ) != nullptr
    );
}

TEST_CASE("concat evaluates when its arguments are known and keeps the rest as an expression", "[tosca][functions]") {
    const std::string text = Normative(
        "    port: {type: integer, default: 8080}\n",
        "            num_cpus: 1\n",
        "  outputs:\n"
        "    static: {value: {concat: ['http://host:', {get_input: port}, /x]}}\n"
        "    dynamic: {value: {concat: ['http://', {get_attribute: [server, public_address]}, ':', {get_input: "
        "port}]}}\n"
        "    empty: {value: {concat: []}}\n"
    );
    const auto check = Check(text);
    CHECK(
        Find(check, "Invalid arguments for function \"concat\". Expected at least one argument", "outputs.empty") !=
        nullptr
    );
    const auto good = Check(text.substr(0, text.find("    empty:")), Json::object());
    INFO(Dump(good));
    REQUIRE(good.valid());
    CHECK(good.spec->outputs[0].resolved);
    CHECK(good.spec->outputs[0].value == "http://host:8080/x");
    CHECK_FALSE(good.spec->outputs[1].resolved);
    CHECK(
        good.spec->outputs[1].value ==
        Json::parse(R"({"concat":["http://",{"get_attribute":["server","public_address"]},":",8080]})")
    );
}

TEST_CASE("join and token", "[tosca][functions]") {
    const std::string text = Normative(
        "    parts: {type: list, entry_schema: {type: string}, default: [a, b, c]}\n",
        "            num_cpus: 1\n",
        "  outputs:\n"
        "    joined: {value: {join: [{get_input: parts}, '-']}}\n"
        "    plain: {value: {join: [[x, y]]}}\n"
        "    second: {value: {token: ['one,two,three', ',', 1]}}\n"
    );
    const auto check = Check(text, Json::object());
    INFO(Dump(check));
    REQUIRE(check.valid());
    CHECK(check.spec->outputs[0].value == "a-b-c");
    CHECK(check.spec->outputs[1].value == "xy");
    CHECK(check.spec->outputs[2].value == "two");

    const auto bad = Check(Normative(
        "",
        "            num_cpus: 1\n",
        "  outputs:\n    t: {value: {token: ['a,b', ',']}}\n    u: {value: {token: ['a,b', ',', x]}}\n    v: {value: "
        "{token: ['a,b', ',', 5]}}\n"
    ));
    CHECK(Find(bad, "Expected three arguments", "outputs.t") != nullptr);
    CHECK(Find(bad, "Expected a non-negative integer value as third argument", "outputs.u") != nullptr);
    CHECK(Find(bad, "index 5 is out of range", "outputs.v") != nullptr);
    // Strict (the spec) splits on any separator character; compatibility on the whole text.
    const std::string multi =
        Normative("", "            num_cpus: 1\n", "  outputs:\n    t: {value: {token: ['a:b;c', ':;', 1]}}\n");
    CHECK(Check(multi, std::nullopt, Mode::kStrict).spec->outputs[0].value == "b");
    CHECK(Find(Check(multi), "index 1 is out of range") != nullptr);
}

TEST_CASE("get_nodes_of_type, get_artifact and get_operation_output", "[tosca][functions]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_3\n"
        "topology_template:\n"
        "  node_templates:\n"
        "    a: {type: tosca.nodes.Compute, artifacts: {img: {type: tosca.artifacts.Deployment.Image.VM, file: "
        "disk.qcow2}}}\n"
        "    b: {type: tosca.nodes.Compute}\n"
        "    c: {type: tosca.nodes.BlockStorage, properties: {size: 1 GB}}\n"
        "  outputs:\n"
        "    computes: {value: {get_nodes_of_type: Compute}}\n"
        "    image: {value: {get_artifact: [a, img]}}\n"
        "    out: {value: {get_operation_output: [a, Standard, create, result]}}\n";
    const auto check = Check(text);
    INFO(Dump(check));
    REQUIRE(check.valid());
    CHECK(check.spec->outputs[0].value == Json::parse(R"(["a","b"])"));
    CHECK_FALSE(check.spec->outputs[1].resolved);
    CHECK_FALSE(check.spec->outputs[2].resolved);
    const std::string bad =
        text +
        "    nope: {value: {get_artifact: [b, img]}}\n    itf: {value: {get_operation_output: [a, Nope, create, x]}}\n";
    CHECK(Find(Check(bad), "has no artifact \"img\"") != nullptr);
    CHECK(Find(Check(bad), "has no interface \"Nope\"") != nullptr);
}

TEST_CASE("functions nested past the depth limit are an error", "[tosca][functions][limits]") {
    EngineOptions options;
    options.limits.max_function_depth = 4;
    const TemplateEngine engine(options);
    std::string value = "x";
    for (int i = 0; i < 6; ++i) {
        value = "{concat: [" + value + "]}";
    }
    const auto check =
        engine.Check(Normative("", "            num_cpus: 1\n", "  outputs:\n    deep: {value: " + value + "}\n"));
    CHECK(Find(check, "functions nest deeper than 4 levels") != nullptr);
    // A get_property chain longer than the default limit (32) is stopped too.
    std::string props;
    std::string values;
    for (int i = 0; i < 40; ++i) {
        props += "        p" + std::to_string(i) + ": {type: string, required: false}\n";
        values += "        p" + std::to_string(i) + ": {get_property: [SELF, p" + std::to_string(i + 1) + "]}\n";
    }
    props += "        p40: {type: string, required: false}\n";
    const std::string chain =
        "tosca_definitions_version: tosca_simple_yaml_1_3\n"
        "node_types:\n  my.Chain:\n    derived_from: tosca.nodes.Root\n    properties:\n" +
        props + "topology_template:\n  node_templates:\n    n:\n      type: my.Chain\n      properties:\n" + values +
        "        p40: end\n";
    CHECK(Find(Check(chain), "functions nest deeper than 32 levels") != nullptr);
}

}  // namespace
}  // namespace orch::tosca
