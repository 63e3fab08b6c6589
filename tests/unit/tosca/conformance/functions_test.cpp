// TOSCA Simple Profile 1.3 §4 (intrinsic functions): the HOST keyword walks the HostedOn chain
// (§4.4.2), get_property / get_attribute reach capabilities and, through a requirement, its
// target and the capability it reached (§4.5.1, §4.5.2), attributes come from the type's
// ancestors and from capability definitions.
#include "conformance.hpp"

namespace orch::tosca::test {
namespace {

/// app (WebApplication) -> web (WebServer) -> server (Compute); `app_props` go under app's
/// properties.
std::string WebStack(std::string_view app_props) {
    return Tosca(
        "topology_template:\n"
        "  node_templates:\n"
        "    app:\n"
        "      type: tosca.nodes.WebApplication\n"
        "      properties:\n" +
        std::string(app_props) +
        "      requirements:\n"
        "        - host: web\n"
        "    web:\n"
        "      type: tosca.nodes.WebServer\n"
        "      requirements:\n"
        "        - host: server\n"
        "    server:\n"
        "      type: tosca.nodes.Compute\n"
        "      capabilities:\n"
        "        os:\n"
        "          properties: {type: linux}\n"
        "        host:\n"
        "          properties: {num_cpus: 2}\n"
    );
}

TEST_CASE("conformance 4.4.2: get_attribute HOST walks the HostedOn chain", "[tosca][conformance][functions]") {
    ExpectForm(
        {"1.3 §4.4.2, §4.5.2",
         WebStack("        context_root: {get_attribute: [HOST, private_address]}\n"),
         WebStack("        context_root: {get_attribute: [HOST, no_such_address]}\n"),
         "no host of \"app\" declares attribute \"no_such_address\"",
         Compat::kWarns}
    );
}

TEST_CASE("conformance 4.4.2: get_property HOST with a capability walks the chain", "[tosca][conformance][functions]") {
    ExpectForm(
        {"1.3 §4.4.2, §4.5.1",
         WebStack("        context_root: {get_property: [HOST, os, type]}\n"),
         WebStack("        context_root: {get_property: [HOST, os, colour]}\n"),
         "no host of \"app\" declares property \"os.colour\""}
    );
}

TEST_CASE("conformance 4.5.1: get_property through a requirement", "[tosca][conformance][functions]") {
    // [SELF, host, num_cpus]: the target has no property num_cpus; the capability the host
    // requirement reached (Compute's `host`) has.
    const auto stack = [](std::string_view property) {
        return Tosca(
            "topology_template:\n"
            "  node_templates:\n"
            "    app:\n"
            "      type: tosca.nodes.SoftwareComponent\n"
            "      interfaces:\n"
            "        Standard:\n"
            "          create:\n"
            "            implementation: create.sh\n"
            "            inputs:\n"
            "              cpus: {get_property: [SELF, host, " +
            std::string(property) +
            "]}\n"
            "      requirements:\n"
            "        - host: server\n"
            "    server:\n"
            "      type: tosca.nodes.Compute\n"
        );
    };
    ExpectForm(
        {"1.3 §4.5.1 (requirement_or_capability_name)",
         stack("num_cpus"),
         stack("num_gpus"),
         "Property \"num_gpus\" was not found in node template \"server\" (target of requirement host)"}
    );
}

TEST_CASE(
    "conformance 4.5.2: get_attribute through a requirement and on capabilities", "[tosca][conformance][functions]"
) {
    const auto stack = [](std::string_view args, std::string_view capability_attrs = "") {
        return Tosca(
            "node_types:\n"
            "  acme.Server:\n"
            "    derived_from: tosca.nodes.Compute\n"
            "    capabilities:\n"
            "      admin:\n"
            "        type: tosca.capabilities.Endpoint.Admin\n" +
            std::string(capability_attrs) +
            "topology_template:\n"
            "  node_templates:\n"
            "    app:\n"
            "      type: tosca.nodes.SoftwareComponent\n"
            "      interfaces:\n"
            "        Standard:\n"
            "          create:\n"
            "            implementation: create.sh\n"
            "            inputs:\n"
            "              address: {get_attribute: [" +
            std::string(args) +
            "]}\n"
            "      requirements:\n"
            "        - host: server\n"
            "    server:\n"
            "      type: acme.Server\n"
        );
    };
    const std::string_view refined =
        "        attributes:\n"
        "          console_url: {type: string}\n";
    SECTION("the target's attribute, inherited from its type's ancestor (tosca.nodes.Compute)") {
        ExpectForm(
            {"1.3 §4.5.2",
             stack("SELF, host, public_address"),
             stack("SELF, host, console_url"),
             "Attribute \"console_url\" was not found in node template \"server\" (target of requirement host)",
             Compat::kWarns}
        );
    }
    SECTION("an attribute a capability definition declares (1.1+ capability definition 'attributes')") {
        ExpectForm(
            {"1.3 §3.6.2 (capability definition attributes), §4.5.2",
             stack("server, admin, console_url", refined),
             stack("server, admin, console_path", refined),
             "Attribute \"console_path\" was not found in capability \"admin\" of node template \"server\"",
             Compat::kWarns}
        );
    }
    SECTION("a capability type's attribute (Endpoint's ip_address)") {
        ExpectForm(
            {"1.3 §5.5.5, §4.5.2",
             stack("server, endpoint, ip_address"),
             stack("server, endpoint, mac_address"),
             "Attribute \"mac_address\" was not found in capability \"endpoint\"",
             Compat::kWarns}
        );
    }
}

}  // namespace
}  // namespace orch::tosca::test
