// TOSCA Simple Profile 1.3 §3.1 (tosca_definitions_version): the four Simple Profile versions
// and the 1.0 namespace URI are read; documents of other TOSCA profiles (NFV, TOSCA 2.0) are
// refused as profiles we do not support, not as invalid versions.
#include "conformance.hpp"

namespace orch::tosca::test {
namespace {

const char* kOneServer =
    "topology_template:\n"
    "  node_templates:\n"
    "    server:\n"
    "      type: tosca.nodes.Compute\n";

TEST_CASE("conformance 3.1: every Simple Profile version is read", "[tosca][conformance][versions]") {
    for (const std::string_view version :
         {"tosca_simple_yaml_1_0",
          "tosca_simple_yaml_1_1",
          "tosca_simple_yaml_1_2",
          "tosca_simple_yaml_1_3",
          "http://docs.oasis-open.org/tosca/ns/simple/yaml/1.0"}) {
        ExpectForm({"1.3 §3.1", Tosca(kOneServer, version), Tosca(kOneServer, "tosca_simple_yaml_1_4"), "is invalid"});
    }
}

TEST_CASE("conformance 3.1: the NFV profile is refused as not supported", "[tosca][conformance][versions]") {
    ExpectForm(
        {"TOSCA Simple Profile for NFV 1.0 §5.2",
         Tosca(kOneServer),
         Tosca(kOneServer, "tosca_simple_profile_for_nfv_1_0_0"),
         "The TOSCA profile \"tosca_simple_profile_for_nfv_1_0_0\" (the TOSCA Simple Profile for NFV) is not supported"}
    );
    // Not worded as an invalid version: the version is valid TOSCA, only not ours.
    const TemplateCheck nfv = Check(Tosca(kOneServer, "tosca_simple_profile_for_nfv_1_0_0"));
    CHECK(Find(nfv, "is invalid") == nullptr);
    CHECK(Find(Check(Tosca(kOneServer, "tosca_2_0")), "(TOSCA 2.0) is not supported") != nullptr);
}

TEST_CASE("conformance 3.1: 1.3-only grammar under an older version", "[tosca][conformance][versions]") {
    const std::string body =
        "data_types:\n"
        "  acme.Labels:\n"
        "    derived_from: tosca.datatypes.Root\n"
        "    properties:\n"
        "      labels: {type: map, key_schema: string, entry_schema: string, required: false}\n"
        "interface_types:\n"
        "  acme.Lifecycle:\n"
        "    derived_from: tosca.interfaces.Root\n"
        "    operations:\n"
        "      deploy: {description: deploys}\n"
        "    notifications:\n"
        "      deployed: {description: done}\n" +
        std::string(kOneServer);
    ExpectForm(
        {"1.3 §3.6.10 key_schema, §3.7.5 interface type operations/notifications (new in 1.3)",
         Tosca(body),
         Tosca(body, "tosca_simple_yaml_1_0"),
         "'key_schema' in a property definition is TOSCA 1.3 grammar, but the document declares version 1.0",
         Compat::kWarns}
    );
    for (const std::string_view key : {"'operations' in an interface type", "'notifications' in an interface type"}) {
        CHECK(Find(Check(Tosca(body, "tosca_simple_yaml_1_2"), std::nullopt, Mode::kStrict), key) != nullptr);
    }
    // An interface assignment in a node template, under 1.1.
    const std::string assignment = std::string(kOneServer) +
                                   "      interfaces:\n"
                                   "        Standard:\n"
                                   "          operations:\n"
                                   "            create: create.sh\n";
    ExpectForm(
        {"1.3 §3.6.21 (interface assignment operations, new in 1.3)",
         Tosca(assignment),
         Tosca(assignment, "tosca_simple_yaml_1_1"),
         "'operations' in an interface assignment is TOSCA 1.3 grammar, but the document declares version 1.1",
         Compat::kWarns}
    );
}

}  // namespace
}  // namespace orch::tosca::test
