#include "tosca_test_util.hpp"
#include "types/normative.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

namespace orch::tosca {
namespace {

using test::Check;
using test::Dump;
using test::Find;
using test::Template;

std::string Minimal(const std::string& version = "tosca_simple_yaml_1_0") {
    return "tosca_definitions_version: " + version +
           "\ntopology_template:\n  node_templates:\n    vm: {type: tosca.nodes.Compute}\n";
}

TEST_CASE("the embedded normative types load without findings", "[tosca][engine]") {
    CHECK(NormativeDiagnostics().empty());
    for (const char* version :
         {"tosca_simple_yaml_1_0", "tosca_simple_yaml_1_1", "tosca_simple_yaml_1_2", "tosca_simple_yaml_1_3"}) {
        INFO(version);
        REQUIRE(NormativeTypes(version) != nullptr);
        CHECK(NormativeTypes(version)->Find(TypeKind::kNode, "tosca.nodes.Compute") != nullptr);
    }
    CHECK(NormativeTypes("tosca_simple_yaml_1_3")->Find(TypeKind::kData, "tosca.datatypes.json") != nullptr);
    CHECK(NormativeTypes("tosca_simple_yaml_1_0")->Find(TypeKind::kData, "tosca.datatypes.json") == nullptr);
}

TEST_CASE("tosca_definitions_version: 1.0 to 1.3 and the namespace URI accepted, others refused", "[tosca][engine]") {
    for (const char* version :
         {"tosca_simple_yaml_1_0",
          "tosca_simple_yaml_1_1",
          "tosca_simple_yaml_1_2",
          "tosca_simple_yaml_1_3",
          "http://docs.oasis-open.org/tosca/ns/simple/yaml/1.0"}) {
        INFO(version);
        CHECK(Check(Minimal(version)).valid());
    }
    const auto bad = Check(Minimal("tosca_simple_yaml_2_0"));
    const Diagnostic* d = Find(bad, "The template version \"tosca_simple_yaml_2_0\" is invalid");
    REQUIRE(d != nullptr);
    CHECK(d->line == 1);
    CHECK(d->column == 28);
    CHECK(d->code == DiagnosticCode::kVersion);
    CHECK(
        Find(Check("topology_template: {}\n"), "Template is missing required field \"tosca_definitions_version\"") !=
        nullptr
    );
    // Not the first key: a warning only (real branch templates put it last).
    const auto last = Check(
        "topology_template:\n  node_templates:\n    vm: {type: tosca.nodes.Compute}\ntosca_definitions_version: "
        "tosca_simple_yaml_1_0\n"
    );
    CHECK(last.valid());
    CHECK(Find(last, "should be the first key", "", Severity::kWarning) != nullptr);
}

// Each kind of type has the common keys (derived_from, version, metadata, description,
// properties) and its own; anything else is reported where it stands.
TEST_CASE("type definitions: every kind's own keys are known, others reported", "[tosca][engine]") {
    const std::string types = R"(
data_types:
  my.D: {derived_from: tosca.datatypes.Root, version: "1.0", metadata: {a: b}, description: d, properties: {}, constraints: [], entry_schema: string, key_schema: string}
artifact_types:
  my.A: {derived_from: tosca.artifacts.Root, description: d, mime_type: text/plain, file_ext: [txt]}
capability_types:
  my.C: {derived_from: tosca.capabilities.Root, description: d, attributes: {}, valid_source_types: []}
relationship_types:
  my.R: {derived_from: tosca.relationships.Root, description: d, attributes: {}, interfaces: {}, valid_target_types: []}
node_types:
  my.N: {derived_from: tosca.nodes.Root, version: "1.0", metadata: {a: b}, description: d, properties: {}, attributes: {}, requirements: [], capabilities: {}, interfaces: {}, artifacts: {}}
group_types:
  my.G: {derived_from: tosca.groups.Root, description: d, attributes: {}, members: [], interfaces: {}, requirements: [], capabilities: {}}
policy_types:
  my.P: {derived_from: tosca.policies.Root, description: d, properties: {}, targets: [], triggers: {}}
)";
    const std::string text = Minimal() + types;
    const auto clean = Check(text, std::nullopt, Mode::kStrict);
    INFO(Dump(clean));
    CHECK(Find(clean, "unknown key") == nullptr);
    std::string odd = text;
    odd.replace(odd.find("mime_type"), 9, "colour");
    const auto report = Check(odd);
    CHECK(
        Find(report, "an artifact type has an unknown key 'colour' (ignored)", "colour", Severity::kWarning) != nullptr
    );
    std::string odd_node = text;
    odd_node.replace(odd_node.find("artifacts: {}}"), 9, "triggers");
    CHECK(
        Find(Check(odd_node), "a node type has an unknown key 'triggers'", "triggers", Severity::kWarning) != nullptr
    );
}

TEST_CASE("unknown grammar keys: warning in compatibility mode, error in strict mode", "[tosca][engine]") {
    const std::string text = Minimal() + "dsl_definitions: {}\ncolour: red\n";
    const auto compat = Check(text);
    CHECK(compat.valid());
    CHECK(Find(compat, "has an unknown key 'colour' (ignored)", "colour", Severity::kWarning) != nullptr);
    CHECK(Find(Check(text, std::nullopt, Mode::kStrict), "has an unknown key 'colour'", "colour") != nullptr);
    const std::string scalable =
        Template("    vm:\n      type: tosca.nodes.indigo.Compute\n      scalable: {properties: {count: 2}}\n");
    CHECK(Check(scalable).valid());
    CHECK_FALSE(Check(scalable, std::nullopt, Mode::kStrict).valid());
}

TEST_CASE(
    "node templates: unknown types, undeclared and missing properties, undeclared capabilities", "[tosca][engine]"
) {
    const auto unknown = Check(Template("    vm:\n      type: tosca.nodes.indigo.Comput\n"));
    const Diagnostic* d = Find(unknown, "unknown node type tosca.nodes.indigo.Comput");
    REQUIRE(d != nullptr);
    CHECK(d->path == "topology_template.node_templates.vm.type");
    CHECK(d->line == 7);
    CHECK(d->code == DiagnosticCode::kUnknownType);
    CHECK(
        Find(
            Check(Template("    vm:\n      type: tosca.capabilities.Container\n")),
            "is a capability type, not a node type"
        ) != nullptr
    );

    const auto undeclared =
        Check(Template("    vm:\n      type: tosca.nodes.indigo.Compute\n      properties:\n        zabbix_server: z\n")
        );
    CHECK(
        Find(
            undeclared,
            "property 'zabbix_server' is not declared by node type tosca.nodes.indigo.Compute",
            "vm.properties.zabbix_server"
        ) != nullptr
    );

    // Batch.Job declares environment without required: false; the original does not enforce it.
    const std::string job =
        Template("    job:\n      type: tosca.nodes.indigo.Qcg.Job\n      properties: {executable: /bin/date}\n");
    CHECK(Check(job).valid());
    CHECK(Find(Check(job), "required property 'environment'", "", Severity::kWarning) != nullptr);
    CHECK(
        Find(
            Check(job, std::nullopt, Mode::kStrict),
            "required property 'environment' of node type tosca.nodes.indigo.Qcg.Job is not set"
        ) != nullptr
    );

    const std::string cap = Template(
        "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities:\n        gpu: {properties: {count: 1}}\n"
    );
    CHECK(Check(cap).valid());
    CHECK(
        Find(
            Check(cap, std::nullopt, Mode::kStrict),
            "capability 'gpu' is not declared by node type tosca.nodes.indigo.Compute"
        ) != nullptr
    );
    const auto cap_prop =
        Check(Template("    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities:\n        host: "
                       "{properties: {num_tpus: 1}}\n"));
    CHECK(
        Find(
            cap_prop,
            "property 'num_tpus' is not declared by capability type tosca.capabilities.indigo.Container",
            "capabilities.host.properties.num_tpus"
        ) != nullptr
    );
}

TEST_CASE("the error path and position name the GPU property that is wrong", "[tosca][engine]") {
    const auto check =
        Check(Template("    gpu_node:\n      type: tosca.nodes.indigo.Compute\n      capabilities:\n        host:\n    "
                       "      properties:\n            num_gpus: two\n"));
    REQUIRE(check.diagnostics.size() >= 1);
    const Diagnostic* d = Find(check, "\"two\" is not an integer");
    REQUIRE(d != nullptr);
    CHECK(d->path == "topology_template.node_templates.gpu_node.capabilities.host.properties.num_gpus");
    CHECK(d->file == "t.yaml");
    CHECK(d->line == 11);
    CHECK(d->column == 23);
    CHECK(
        FormatDiagnostic(*d) ==
        "t.yaml:11:23: error: topology_template.node_templates.gpu_node.capabilities.host.properties.num_gpus: \"two\" "
        "is not an integer"
    );
    CHECK(
        check.ErrorMessage() ==
        "Error parsing TOSCA template template:\n11:23: "
        "topology_template.node_templates.gpu_node.capabilities.host.properties.num_gpus: \"two\" is not an integer"
    );
    const Error error = ToError(check.diagnostics);
    CHECK(error.code == ErrorCode::kInvalidArgument);
    CHECK(HttpStatusFor(error.code) == 400);
}

TEST_CASE("every error is reported, not only the first", "[tosca][engine]") {
    const auto check =
        Check(Template("    a:\n      type: tosca.nodes.indigo.Compute\n      properties: {nope: 1}\n"
                       "    b:\n      type: tosca.nodes.Missing\n"
                       "    c:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {host: {properties: "
                       "{num_cpus: x, mem_size: 1 XB}}}\n"));
    CHECK(CountErrors(check.diagnostics) == 4);
}

TEST_CASE("requirements: short and long form bound to real nodes with compatible capabilities", "[tosca][engine]") {
    const std::string good =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n"
        "    app: {type: tosca.nodes.WebApplication, requirements: [{host: web}]}\n"
        "    web: {type: tosca.nodes.WebServer, requirements: [{host: {node: vm, capability: host, relationship: "
        "HostedOn}}]}\n"
        "    vm: {type: Compute, requirements: [{local_storage: {node: disk, relationship: {type: AttachesTo, "
        "properties: {location: /data}}}}]}\n"
        "    disk: {type: BlockStorage, properties: {size: 10 GB}}\n";
    const auto check = Check(good);
    INFO(Dump(check));
    REQUIRE(check.valid());
    const NodeSpec* app = check.spec->FindNode("app");
    CHECK(app->host_node == "web");
    REQUIRE(app->requirements.size() == 1);
    CHECK(app->requirements[0].relationship == "tosca.relationships.HostedOn");
    CHECK(app->requirements[0].capability == "host");
    const NodeSpec* vm = check.spec->FindNode("vm");
    CHECK(vm->depends_on == std::vector<std::string>{"disk"});
    CHECK(vm->requirements[0].properties == Json::parse(R"({"location":"/data"})"));

    const std::string no_target =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n    app: {type: "
        "tosca.nodes.WebApplication, requirements: [{host: nowhere}]}\n";
    CHECK(
        Find(Check(no_target), "requirement 'host' of node 'app' refers to 'nowhere', which is not a node template") !=
        nullptr
    );
    const std::string undeclared =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n    app: {type: "
        "tosca.nodes.WebApplication, requirements: [{storage: vm}]}\n    vm: {type: Compute}\n";
    CHECK(
        Find(Check(undeclared), "requirement 'storage' is not declared by node type tosca.nodes.WebApplication") !=
        nullptr
    );
    const std::string no_cap =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n    vm: {type: "
        "Compute, requirements: [{local_storage: other}]}\n    other: {type: Compute}\n";
    CHECK(
        Find(
            Check(no_cap),
            "needs a capability of type tosca.capabilities.Attachment, which node 'other' (tosca.nodes.Compute) does "
            "not offer"
        ) != nullptr
    );
    const std::string bad_rel =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n    app: {type: "
        "tosca.nodes.WebApplication, requirements: [{host: {node: web, relationship: ConnectsTo}}]}\n    web: {type: "
        "tosca.nodes.WebServer}\n";
    CHECK(
        Find(
            Check(bad_rel, std::nullopt, Mode::kStrict), "needs a relationship of type tosca.relationships.HostedOn"
        ) != nullptr
    );
    CHECK(
        Find(Check(bad_rel), "needs a relationship of type tosca.relationships.HostedOn", "", Severity::kWarning) !=
        nullptr
    );
}

TEST_CASE("requirement cycles are rejected with the original's message", "[tosca][engine]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n"
        "    a: {type: tosca.nodes.Compute, requirements: [{dependency: b}]}\n"
        "    b: {type: tosca.nodes.Compute, requirements: [{dependency: c}]}\n"
        "    c: {type: tosca.nodes.Compute, requirements: [{dependency: a}]}\n"
        "    d: {type: tosca.nodes.Compute, requirements: [{dependency: d}]}\n"
        "    e: {type: tosca.nodes.Compute, requirements: [{dependency: a}]}\n";
    const auto check = Check(text);
    REQUIRE(CountErrors(check.diagnostics) == 2);
    CHECK(Find(check, "Found node depencency loop in TOSCA topology; involved nodes: [a, b, c]") != nullptr);
    CHECK(Find(check, "Found node depencency loop in TOSCA topology; involved nodes: [d]") != nullptr);
    CHECK(
        check.ErrorMessage() ==
        "Found node depencency loop in TOSCA topology; involved nodes: [a, b, c]\nFound node depencency loop in TOSCA "
        "topology; involved nodes: [d]"
    );
}

TEST_CASE("required inputs without a value: the original's message, only when inputs are given", "[tosca][engine]") {
    const std::string text = Template(
        "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {host: {properties: {num_cpus: "
        "{get_input: cpus}}}}\n",
        "    cpus: {type: integer}\n    flavour: {type: string, required: false}\n"
    );
    CHECK(Check(text).valid());  // the template alone: the caller supplies cpus
    const auto missing = Check(text, Json::object());
    CHECK(
        missing.ErrorMessage() ==
        "Input cpus is required and is not present in the user's input list, nor has a default value"
    );
    CHECK(Find(missing, "Input cpus is required")->code == DiagnosticCode::kMissingInput);
    // A parameter naming no input is refused by default (unknown_parameters_test.cpp has the rest).
    const auto extra = Check(text, Json::parse(R"({"cpus": 2, "colour": "red"})"));
    CHECK(extra.ErrorMessage() == "Parameter 'colour' is not an input of the template");
    CHECK(Find(Check(text, Json::parse("[1, 2]")), "the parameters must be a JSON object") != nullptr);
    CHECK(Find(Check(text, Json::parse(R"({"cpus": [2]})")), "[2] is not an integer", "parameters.cpus") != nullptr);
}

TEST_CASE(
    "policies and groups: targets must exist, properties are checked, placement is extracted", "[tosca][engine]"
) {
    const std::string nodes = "    vm:\n      type: tosca.nodes.indigo.Compute\n";
    const auto good = Check(Template(
        nodes,
        "",
        "  policies:\n    - deploy_on_site:\n        type: tosca.policies.indigo.SlaPlacement\n        properties: "
        "{sla_id: sla-42}\n        targets: [vm]\n"
    ));
    INFO(Dump(good));
    REQUIRE(good.valid());
    REQUIRE(good.spec->policies.size() == 1);
    CHECK(good.spec->policies[0].sla_id == "sla-42");
    CHECK(good.spec->policies[0].type == "tosca.policies.indigo.SlaPlacement");
    CHECK(good.spec->policies[0].targets == std::vector<std::string>{"vm"});
    const auto bad_target = Check(Template(
        nodes,
        "",
        "  policies:\n    - p: {type: tosca.policies.indigo.SlaPlacement, properties: {sla_id: x}, targets: [ghost]}\n"
    ));
    CHECK(Find(bad_target, "target 'ghost' is not a node template or group", "policies[0].p.targets") != nullptr);
    const auto bad_type = Check(Template(nodes, "", "  policies:\n    - p: {type: tosca.policies.Nope}\n"));
    CHECK(Find(bad_type, "unknown policy type tosca.policies.Nope") != nullptr);
    const auto groups =
        Check(Template(nodes, "", "  groups:\n    g: {type: tosca.groups.Root, members: [vm, ghost]}\n"));
    CHECK(Find(groups, "target 'ghost' is not a node template", "groups.g.members") != nullptr);
}

TEST_CASE("artifacts and interfaces are checked against their types", "[tosca][engine]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n"
        "    vm:\n      type: tosca.nodes.Compute\n"
        "      artifacts:\n        img: {type: tosca.artifacts.Nope, file: x}\n"
        "      interfaces:\n        Standard:\n          create: install.sh\n          explode: boom.sh\n        "
        "Custom: {}\n";
    const auto compat = Check(text);
    CHECK(Find(compat, "unknown artifact type tosca.artifacts.Nope") != nullptr);
    CHECK(
        Find(
            compat,
            "interface 'Standard' of node type tosca.nodes.Compute has no operation 'explode'",
            "",
            Severity::kWarning
        ) != nullptr
    );
    const auto strict = Check(text, std::nullopt, Mode::kStrict);
    CHECK(Find(strict, "has no operation 'explode'") != nullptr);
    CHECK(Find(strict, "interface 'Custom' is not declared by node type tosca.nodes.Compute") != nullptr);
}

TEST_CASE("a constraint whose operand has the wrong shape is an error naming the shape", "[tosca][engine]") {
    const std::string text = Minimal() + R"(node_types:
  my.N:
    derived_from: tosca.nodes.Root
    properties:
      a: {type: integer, constraints: [{in_range: [1]}]}
      b: {type: string, constraints: [{valid_values: x}]}
      c: {type: string, constraints: [{min_length: -1}]}
      d: {type: string, constraints: [{pattern: [x]}]}
      e: {type: integer, constraints: [{greater_than: [1, 2]}]}
      f: {type: integer, constraints: [{in_range: [1, 8]}, {valid_values: [1, 2]}, {greater_than: 0}]}
      g: {type: string, constraints: [{max_length: 3}, {pattern: "[a-z]+"}, {equal: abc}]}
)";
    const auto check = Check(text);
    INFO(Dump(check));
    CHECK(Find(check, "in_range needs a list of two bounds [min, max], not [1]", "properties.a") != nullptr);
    CHECK(Find(check, "valid_values needs a list of values, not x", "properties.b") != nullptr);
    CHECK(Find(check, "min_length needs a non-negative integer, not -1", "properties.c") != nullptr);
    CHECK(Find(check, "pattern needs a regular expression text, not [x]", "properties.d") != nullptr);
    CHECK(Find(check, "greater_than needs a single value, not [1, 2]", "properties.e") != nullptr);
    CHECK(Find(check, "", "properties.f") == nullptr);
    CHECK(Find(check, "", "properties.g") == nullptr);
}

TEST_CASE("template-defined types derive from imported and normative ones", "[tosca][engine]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_3\n"
        "data_types:\n  my.Gpu:\n    derived_from: tosca.datatypes.Root\n    properties:\n      model: {type: "
        "string}\n      count: {type: integer, constraints: [{in_range: [1, 8]}]}\n"
        "node_types:\n  my.GpuBox:\n    derived_from: Compute\n    properties:\n      gpu: {type: my.Gpu}\n"
        "  my.Broken:\n    derived_from: my.Nothing\n"
        "topology_template:\n  node_templates:\n    box: {type: my.GpuBox, properties: {gpu: {model: V100, count: "
        "9}}}\n";
    const auto check = Check(text);
    CHECK(Find(check, "\"9\" is out of the range [1, 8]", "box.properties.gpu.count") != nullptr);
    CHECK(Find(check, "my.Broken derives from unknown type my.Nothing") != nullptr);
    const std::string cyclic =
        "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  a.A: {derived_from: a.B}\n  a.B: "
        "{derived_from: a.A}\n" +
        Minimal().substr(Minimal().find("topology_template"));
    CHECK(Find(Check(cyclic), "derives from itself") != nullptr);
}

TEST_CASE("long derivation chains and HostedOn cycles are bounded", "[tosca][engine][limits]") {
    std::string types =
        "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  t.T0: {derived_from: tosca.nodes.Root}\n";
    for (int i = 1; i < 5000; ++i) {
        types += "  t.T" + std::to_string(i) + ": {derived_from: t.T" + std::to_string(i - 1) + "}\n";
    }
    CHECK(Find(Check(types), "derives through more than 64 levels") != nullptr);
    const std::string loop =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates:\n"
        "    a: {type: tosca.nodes.SoftwareComponent, requirements: [{host: b}], properties: {component_version: "
        "{get_property: [HOST, nothing]}}}\n"
        "    b: {type: tosca.nodes.Container.Runtime, requirements: [{host: a}]}\n";
    const auto check = Check(loop);
    CHECK(Find(check, "Found node depencency loop") != nullptr);
    CHECK(Find(check, "no host of \"a\" declares property \"nothing\"") != nullptr);
}

TEST_CASE("types-only documents validate their types", "[tosca][engine]") {
    const auto check = Check(
        "tosca_definitions_version: tosca_simple_yaml_1_0\nnode_types:\n  my.Node:\n    derived_from: "
        "tosca.nodes.Root\n    properties:\n      p: {type: integer, default: x}\n"
    );
    CHECK(Find(check, "\"x\" is not an integer", "node_types.my.Node.properties.p.default") != nullptr);
    CHECK(Check("tosca_definitions_version: tosca_simple_yaml_1_0\nnode_types:\n  my.Node: {derived_from: "
                "tosca.nodes.Root}\n")
              .valid());
}

TEST_CASE("limits: template size and node count give clear errors", "[tosca][engine][limits]") {
    EngineOptions options;
    options.limits.max_document_bytes = 100;
    options.limits.max_node_templates = 2;
    const TemplateEngine engine(options);
    CHECK(Find(engine.Check(std::string(200, '#')), "more than the limit of 100") != nullptr);
    const std::string three =
        "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template:\n  node_templates: {a: {type: Compute}, "
        "b: {type: Compute}, c: {type: Compute}}\n";
    options.limits.max_document_bytes = 4096;
    CHECK(Find(TemplateEngine(options).Check(three), "3 node templates, more than the limit of 2") != nullptr);
}

TEST_CASE("garbage input never crashes and always answers", "[tosca][engine]") {
    for (const char* text :
         {"",
          "[]",
          "42",
          "tosca_definitions_version: [1]",
          "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template: 5",
          "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template: {node_templates: [a]}",
          "tosca_definitions_version: tosca_simple_yaml_1_0\nimports: 7\ntopology_template: {node_templates: {a: "
          "{type: [x]}}}",
          "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template: {node_templates: {a: {type: Compute, "
          "requirements: {x: y}}}}",
          "tosca_definitions_version: tosca_simple_yaml_1_0\ntopology_template: {inputs: {a: 5}, node_templates: {a: "
          "{type: Compute, properties: [1]}}}"}) {
        INFO(text);
        const auto check = Check(text);
        CHECK_FALSE(check.valid());
        CHECK_FALSE(check.ErrorMessage().empty());
    }
}

TEST_CASE("one engine serves concurrent checks with the same results", "[tosca][engine]") {
    const TemplateEngine engine(test::CorpusOptions());
    const std::string good = Template(
        "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {host: {properties: {num_gpus: 2, "
        "gpu_model: T4}}}\n"
    );
    const std::string bad = Template("    vm:\n      type: tosca.nodes.indigo.Compute\n      properties: {nope: 1}\n");
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 25; ++i) {
                const auto check = engine.Check((i + t) % 2 == 0 ? good : bad);
                const bool expected_valid = (i + t) % 2 == 0;
                if (check.valid() != expected_valid ||
                    (expected_valid && check.spec->nodes.front().resources.gpu.count != 2)) {
                    ++failures;
                }
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(failures == 0);
    CHECK(engine.Stats().libraries == 1);  // the INDIGO types were compiled once and shared
}

}  // namespace
}  // namespace orch::tosca
