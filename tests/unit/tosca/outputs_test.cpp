#include "tosca/outputs.hpp"

#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>

namespace orch::tosca {
namespace {

DeploymentSpec SpecFor(const std::string& nodes, const std::string& outputs) {
    const auto check = test::Check(
        test::Template(nodes, "    port: {type: integer, default: 8080}\n", "  outputs:\n" + outputs), Json::object()
    );
    INFO(test::Dump(check));
    REQUIRE(check.spec.has_value());
    return *check.spec;
}

constexpr const char* kMarathon =
    "    app:\n      type: tosca.nodes.indigo.Container.Application.Docker.Marathon\n"
    "      artifacts: {image: {file: x, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n"
    "      requirements: [{host: Docker}]\n"
    "    Docker:\n      type: tosca.nodes.indigo.Container.Runtime.Docker\n"
    "      capabilities: {host: {properties: {publish_ports: [{protocol: tcp, source: 5000}]}}}\n";

TEST_CASE("outputs: get_attribute on node and capability attributes, inside concat", "[tosca][outputs]") {
    const DeploymentSpec spec = SpecFor(
        kMarathon,
        "    endpoint: {value: {concat: ['http://', {get_attribute: [app, load_balancer_ips, 0]}, ':', {get_attribute: "
        "[Docker, host, publish_ports, 0, target]}]}}\n"
        "    port: {value: {get_input: port}}\n"
    );
    const OutputValues evaluated = EvaluateOutputs(
        spec,
        {
            {"app", Json::parse(R"({"load_balancer_ips": ["10.0.0.5", "10.0.0.6"]})")},
            {"Docker",
             Json::parse(R"({"host": {"publish_ports": [{"protocol": "tcp", "source": 5000, "target": 31005}]}})")},
        }
    );
    const Json& outputs = evaluated.values;
    CHECK(outputs["endpoint"] == "http://10.0.0.5:31005");
    CHECK(outputs["port"] == 8080);
}

TEST_CASE("outputs: per-instance attributes, property fallback, null and a note when missing", "[tosca][outputs]") {
    const DeploymentSpec spec = SpecFor(
        "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {scalable: {properties: {count: 2}}, "
        "endpoint: {properties: {dns_name: vm.example.org}}}\n",
        "    ips: {value: {get_attribute: [vm, public_address]}}\n"
        "    first: {value: {get_attribute: [vm, public_address, 0]}}\n"
        "    dns: {value: {get_attribute: [vm, endpoint, dns_name]}}\n"
        "    creds: {value: {get_attribute: [vm, endpoint, credential, 0]}}\n"
        "    joined: {value: {join: [[{get_attribute: [vm, public_address, 1]}, x], ',']}}\n"
    );
    const OutputValues evaluated = EvaluateOutputs(
        spec,
        {
            {"vm",
             Json::parse(
                 R"([{"public_address": ["1.1.1.1"]}, {"public_address": ["2.2.2.2"], "capabilities": {"endpoint": {"credential": [{"user": "u"}]}}}])"
             )},
        }
    );
    const Json& outputs = evaluated.values;
    CHECK(outputs["ips"] == Json::parse(R"(["1.1.1.1", "2.2.2.2"])"));
    CHECK(outputs["first"] == "1.1.1.1");
    CHECK(outputs["dns"] == "vm.example.org");  // the evaluated capability property
    CHECK(outputs["creds"] == Json::parse(R"({"user": "u"})"));
    CHECK(outputs["joined"] == "2.2.2.2,x");
    // Null and a note instead of an error text as the value.
    const OutputValues shown = EvaluateOutputs(spec, {});
    CHECK(shown.values["ips"].is_null());
    CHECK(shown.values["dns"] == "vm.example.org");
    REQUIRE(shown.notes.count("ips") == 1);
    CHECK(shown.notes.at("ips") == "attribute public_address of node vm is not available");
    CHECK(shown.notes.count("dns") == 0);
}

}  // namespace
}  // namespace orch::tosca
