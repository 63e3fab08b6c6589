// TOSCA Simple Profile 1.3 §3.6 (definitions) and §3.7 (type definitions): each short and
// extended form the grammar allows, with a broken sibling. Every template here uses only the
// normative types of its version and types it defines itself.
#include "conformance.hpp"

namespace orch::tosca::test {
namespace {

/// A 1.3 template defining `types` (top-level sections) with one node template `n` of type
/// acme.N (whose definition `types` holds) and `extra` further node templates.
std::string WithNode(std::string_view types, std::string_view n_body = "", std::string_view extra = "") {
    return Tosca(
        std::string(types) +
        "topology_template:\n"
        "  node_templates:\n"
        "    n:\n"
        "      type: acme.N\n" +
        std::string(n_body) + std::string(extra)
    );
}

TEST_CASE("conformance 3.6.10: property definitions", "[tosca][conformance][definitions]") {
    const auto node_type = [](std::string_view property) {
        return "node_types:\n  acme.N:\n    derived_from: tosca.nodes.Root\n    properties:\n" + std::string(property);
    };
    SECTION("short form: a type alone") {
        ExpectForm(
            {"1.3 §3.6.10",
             WithNode(node_type("      p: {type: string, required: false}\n")),
             WithNode(node_type("      p: {type: strin, required: false}\n")),
             "strin"}
        );
    }
    SECTION("extended form: description, required, default, status, constraints, entry_schema, metadata") {
        const std::string full =
            "      p:\n"
            "        type: list\n"
            "        description: ports\n"
            "        required: true\n"
            "        status: experimental\n"
            "        metadata: {origin: spec}\n"
            "        constraints: [{min_length: 1}]\n"
            "        entry_schema:\n"
            "          type: integer\n"
            "          constraints: [{in_range: [1, 65535]}]\n";
        ExpectForm(
            {"1.3 §3.6.10, §3.6.11 (schema definition)",
             WithNode(node_type(full), "      properties: {p: [80, 443]}\n"),
             WithNode(node_type(full), "      properties: {p: [80, 70000]}\n"),
             "70000"}
        );
    }
    SECTION("entry_schema short form (a type name)") {
        const std::string short_schema = "      p: {type: map, entry_schema: integer}\n";
        ExpectForm(
            {"1.3 §3.6.10 (entry_schema)",
             WithNode(node_type(short_schema), "      properties: {p: {a: 1}}\n"),
             WithNode(node_type(short_schema), "      properties: {p: {a: one}}\n"),
             "one"}
        );
    }
}

TEST_CASE("conformance 3.6.12: attribute definitions", "[tosca][conformance][definitions]") {
    const auto node_type = [](std::string_view attribute) {
        return "node_types:\n  acme.N:\n    derived_from: tosca.nodes.Root\n    attributes:\n" + std::string(attribute);
    };
    ExpectForm(
        {"1.3 §3.6.12",
         WithNode(node_type("      a: {type: string, description: d, default: x, status: supported}\n")),
         WithNode(node_type("      a: {description: no type}\n")),
         "type"}
    );
}

TEST_CASE("conformance 3.6.2: capability definitions", "[tosca][conformance][definitions]") {
    const auto types = [](std::string_view capability) {
        return "capability_types:\n  acme.Bare:\n    derived_from: tosca.capabilities.Root\n"
               "node_types:\n  acme.N:\n    derived_from: tosca.nodes.Root\n    capabilities:\n" +
               std::string(capability);
    };
    SECTION("short form: the capability type alone, a type without properties") {
        ExpectForm(
            {"1.3 §3.6.2 (short notation)",
             WithNode(types("      c: acme.Bare\n")),
             WithNode(types("      c: acme.Bear\n")),
             "acme.Bear"}
        );
    }
    SECTION("extended form without properties, assigned empty in a template") {
        const std::string extended =
            "      c:\n"
            "        type: acme.Bare\n"
            "        description: d\n"
            "        occurrences: [1, UNBOUNDED]\n"
            "        valid_source_types: [tosca.nodes.Root]\n";
        ExpectForm(
            {"1.3 §3.6.2, §3.5.? capability assignment",
             WithNode(types(extended), "      capabilities: {c: {}}\n"),
             WithNode(types(extended), "      capabilities: {c: {properties: {size: 1}}}\n"),
             "size"}
        );
    }
}

TEST_CASE("conformance 3.6.3: requirement definitions", "[tosca][conformance][definitions]") {
    const auto types = [](std::string_view requirement) {
        return "capability_types:\n  acme.Bare:\n    derived_from: tosca.capabilities.Root\n"
               "relationship_types:\n"
               "  acme.Uses:\n"
               "    derived_from: tosca.relationships.DependsOn\n"
               "    interfaces:\n"
               "      Configure:\n"
               "        type: tosca.interfaces.relationship.Configure\n"
               "        add_target: add.sh\n"
               "node_types:\n"
               "  acme.Peer:\n"
               "    derived_from: tosca.nodes.Root\n"
               "    capabilities: {c: acme.Bare}\n"
               "  acme.N:\n"
               "    derived_from: tosca.nodes.Root\n"
               "    requirements:\n" +
               std::string(requirement);
    };
    const std::string peer = "    peer:\n      type: acme.Peer\n";
    SECTION("short form, naming no relationship") {
        ExpectForm(
            {"1.3 §3.6.3 (short notation)",
             WithNode(types("      - uses: acme.Bare\n"), "      requirements: [{uses: peer}]\n", peer),
             WithNode(types("      - uses: acme.Bear\n"), "      requirements: [{uses: peer}]\n", peer),
             "acme.Bear"}
        );
    }
    SECTION("extended form with a relationship type that defines its own interfaces") {
        const std::string extended =
            "      - uses:\n"
            "          capability: acme.Bare\n"
            "          node: acme.Peer\n"
            "          relationship: acme.Uses\n"
            "          occurrences: [0, UNBOUNDED]\n";
        ExpectForm(
            {"1.3 §3.6.3, §3.7.3",
             WithNode(types(extended), "      requirements: [{uses: peer}]\n", peer),
             WithNode(types(extended), "      requirements: [{uses: nobody}]\n", peer),
             "nobody"}
        );
    }
    SECTION("relationship given as a definition with interfaces of its own") {
        const std::string extended =
            "      - uses:\n"
            "          capability: acme.Bare\n"
            "          relationship:\n"
            "            type: acme.Uses\n"
            "            interfaces:\n"
            "              Configure:\n"
            "                pre_configure_source: pre.sh\n";
        std::string broken = extended;
        broken.replace(broken.find("type: acme.Uses"), 15, "type: acme.Used");
        ExpectForm(
            {"1.3 §3.6.3 (relationship definition)",
             WithNode(types(extended), "      requirements: [{uses: peer}]\n", peer),
             WithNode(types(broken), "      requirements: [{uses: peer}]\n", peer),
             "acme.Used"}
        );
    }
    SECTION("a requirement assignment naming a custom relationship template") {
        const std::string extended =
            "      - uses:\n"
            "          capability: acme.Bare\n"
            "          relationship: acme.Uses\n";
        const auto assigned = [](std::string_view relationship) {
            return "      requirements:\n        - uses:\n            node: peer\n            relationship: " +
                   std::string(relationship) + "\n";
        };
        const std::string templates = peer +
                                      "  relationship_templates:\n"
                                      "    uses_peer:\n"
                                      "      type: acme.Uses\n"
                                      "      interfaces:\n"
                                      "        Configure:\n"
                                      "          add_target: other.sh\n";
        ExpectForm(
            {"1.3 §3.8.3 (requirement assignment), §3.8.4 (relationship template)",
             WithNode(types(extended), assigned("uses_peer"), templates),
             WithNode(types(extended), assigned("uses_pear"), templates),
             "uses_pear"}
        );
    }
}

TEST_CASE("conformance 3.7.6: data types, Credential fields", "[tosca][conformance][definitions]") {
    const std::string types =
        "data_types:\n"
        "  acme.Login:\n"
        "    derived_from: tosca.datatypes.Credential\n"
        "    properties:\n"
        "      realm: {type: string, required: false}\n"
        "node_types:\n"
        "  acme.N:\n"
        "    derived_from: tosca.nodes.Root\n"
        "    properties:\n"
        "      login: {type: acme.Login}\n"
        "      admin: {type: tosca.datatypes.Credential, required: false}\n";
    // {token: ...} is the Credential's token field here, not the token function.
    ExpectForm(
        {"1.3 §3.7.6, §5.3.2 (tosca.datatypes.Credential)",
         WithNode(types, "      properties:\n        login: {token: s3cret, realm: r}\n        admin: {token: t}\n"),
         WithNode(types, "      properties:\n        login: {token: s3cret, domain: r}\n"),
         "domain"}
    );
}

TEST_CASE("conformance 3.6.7: artifact definitions", "[tosca][conformance][definitions]") {
    const auto types = [](std::string_view artifact) {
        return "node_types:\n  acme.N:\n    derived_from: tosca.nodes.Root\n    artifacts:\n" + std::string(artifact);
    };
    ExpectForm(
        {"1.3 §3.6.7 (short and extended notation)",
         WithNode(types(
             "      a: setup.sh\n      b:\n        type: tosca.artifacts.Implementation.Bash\n        file: b.sh\n"
             "        deploy_path: /opt\n"
         )),
         WithNode(types("      b:\n        type: tosca.artifacts.Implementation.Bash\n        deploy_path: /opt\n")),
         "artifact 'b' has no file",
         Compat::kWarns}
    );
}

TEST_CASE("conformance 3.6.15: operation and interface definitions", "[tosca][conformance][definitions]") {
    const auto types = [](std::string_view interfaces) {
        return "node_types:\n  acme.N:\n    derived_from: tosca.nodes.Root\n    interfaces:\n" +
               std::string(interfaces);
    };
    const std::string forms =
        "      Standard:\n"
        "        type: tosca.interfaces.node.lifecycle.Standard\n"
        "        create: create.sh\n"
        "        configure:\n"
        "          description: extended\n"
        "          implementation:\n"
        "            primary: configure.sh\n"
        "            dependencies: [lib.sh]\n"
        "          inputs:\n"
        "            level: {type: integer, default: 1}\n";
    ExpectForm(
        {"1.3 §3.6.15 (short and extended), §3.6.16 (implementation), §3.6.20",
         WithNode(types(forms)),
         WithNode(types("      Standard:\n        type: tosca.interfaces.node.lifecycle.Standrd\n")),
         "Standrd"}
    );
}

TEST_CASE("conformance 3.7.10-11, 3.8.5-6: group and policy types and templates", "[tosca][conformance][definitions]") {
    const auto with_members = [](std::string_view members) {
        return Tosca(
            "group_types:\n"
            "  acme.Servers:\n"
            "    derived_from: tosca.groups.Root\n"
            "    members: [tosca.nodes.Compute]\n"
            "policy_types:\n"
            "  acme.Spread:\n"
            "    derived_from: tosca.policies.Placement\n"
            "    targets: [acme.Servers]\n"
            "    triggers:\n"
            "      on_failure:\n"
            "        event: failure\n"
            "        action:\n"
            "          - call_operation: Standard.start\n"
            "topology_template:\n"
            "  node_templates:\n"
            "    a: {type: tosca.nodes.Compute}\n"
            "    b: {type: tosca.nodes.Compute}\n"
            "    db: {type: tosca.nodes.DBMS, requirements: [{host: a}]}\n"
            "  groups:\n"
            "    servers:\n"
            "      type: acme.Servers\n"
            "      members: [" +
            std::string(members) +
            "]\n"
            "  policies:\n"
            "    - spread:\n"
            "        type: acme.Spread\n"
            "        targets: [servers]\n"
        );
    };
    ExpectForm(
        {"1.3 §3.7.10 (group type), §3.7.11 (policy type with triggers), §3.8.5, §3.8.6",
         with_members("a, b"),
         with_members("a, db"),
         "target 'db' is of type tosca.nodes.DBMS, which the type does not allow",
         Compat::kWarns}
    );
}

}  // namespace
}  // namespace orch::tosca::test
