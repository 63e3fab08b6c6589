// Which nodes native contextualisation configures and with what: roles, then the playbooks of
// the node's Standard lifecycle operations.
#include <connectors/contextualiser.hpp>

#include <catch2/catch.hpp>

#include <map>

using orch::Json;
using orch::connectors::BuildContextSteps;
using orch::connectors::ContextStep;
using orch::connectors::Failure;

namespace {

orch::tosca::NodeSpec Vm() {
    orch::tosca::NodeSpec node;
    node.name = "vm";
    node.type = "tosca.nodes.indigo.Compute";
    node.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    return node;
}

orch::tosca::NodeSpec Hub() {
    orch::tosca::NodeSpec node;
    node.name = "hub";
    node.type = "tosca.nodes.indigo.JupyterHub";
    node.type_chain = {"tosca.nodes.indigo.JupyterHub", "tosca.nodes.SoftwareComponent", "tosca.nodes.Root"};
    node.host_node = "vm";
    node.requirements.push_back({"host", "vm", "host", "tosca.relationships.HostedOn", Json::object()});
    return node;
}

std::vector<ContextStep> Steps(const orch::tosca::DeploymentSpec& spec) {
    auto steps = BuildContextSteps(spec);
    if (const auto* failure = std::get_if<Failure>(&steps)) {
        FAIL(failure->message);
    }
    return std::get<std::vector<ContextStep>>(steps);
}

}  // namespace

TEST_CASE("a node's create, configure and start playbooks follow its roles in lifecycle order", "[ansible]") {
    orch::tosca::DeploymentSpec spec;
    auto hub = Hub();
    hub.artifacts = {
        {"role", {{"type", "tosca.artifacts.AnsibleGalaxy.role"}, {"file", "indigo-dc.jupyterhub,master"}}}};
    hub.operations = {
        {"start", {{"implementation", "https://mirror.example/start.yaml"}}},
        {"configure", {{"implementation", "https://mirror.example/conf.yml"}, {"inputs", {{"spawner", "local"}}}}},
        {"create", {{"implementation", "https://mirror.example/create.yml"}}},
        {"delete", {{"implementation", "https://mirror.example/delete.yml"}}},  // not a configuration
        {"stop", {{"implementation", "scripts/stop.sh"}}},
    };
    spec.nodes = {hub, Vm()};
    const auto steps = Steps(spec);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].node == "hub");
    CHECK(steps[0].host_node == "vm");
    CHECK(steps[0].roles == std::vector<std::string>{"indigo-dc.jupyterhub"});
    REQUIRE(steps[0].playbooks.size() == 3);
    CHECK(steps[0].playbooks[0].operation == "create");
    CHECK(steps[0].playbooks[1].operation == "configure");
    CHECK(steps[0].playbooks[1].url == "https://mirror.example/conf.yml");
    CHECK(steps[0].playbooks[1].inputs == Json{{"spawner", "local"}});
    CHECK(steps[0].playbooks[2].operation == "start");
}

TEST_CASE("a node with only a playbook is configured, and one without a VM host is the user's error", "[ansible]") {
    orch::tosca::DeploymentSpec spec;
    auto hub = Hub();
    hub.operations = {{"configure", {{"implementation", "https://mirror.example/conf.yml"}}}};
    spec.nodes = {hub, Vm()};
    const auto steps = Steps(spec);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].roles.empty());
    CHECK(steps[0].playbooks.size() == 1);

    hub.host_node.clear();
    hub.requirements.clear();
    spec.nodes = {hub, Vm()};
    auto refused = BuildContextSteps(spec);
    REQUIRE(std::holds_alternative<Failure>(refused));
    CHECK(std::get<Failure>(refused).kind == orch::connectors::FailureKind::kUserError);
}

TEST_CASE("a step comes after the steps its node needs, also through nodes without steps", "[ansible]") {
    // "client" on vm2 (which has roles of its own) connects to "db", which has no roles and
    // depends on "hub": client comes after vm2, its host, and after hub through db.
    orch::tosca::DeploymentSpec spec;
    const Json role = {{"role", {{"type", "tosca.artifacts.AnsibleGalaxy.role"}, {"file", "indigo-dc.x"}}}};
    auto hub = Hub();
    hub.artifacts = role;
    auto vm2 = Vm();
    vm2.name = "vm2";
    vm2.artifacts = role;
    orch::tosca::NodeSpec db;
    db.name = "db";
    db.type = "tosca.nodes.SoftwareComponent";
    db.host_node = "vm";
    db.depends_on = {"hub"};
    auto client = Hub();
    client.name = "client";
    client.artifacts = role;
    client.host_node = "vm2";
    client.requirements = {
        {"host", "vm2", "host", "tosca.relationships.HostedOn", Json::object()},
        {"database", "db", "", "tosca.relationships.ConnectsTo", Json::object()}};
    spec.nodes = {client, db, hub, Vm(), vm2};
    const auto steps = Steps(spec);
    std::map<std::string, std::vector<std::string>> after;
    for (const auto& step : steps) {
        after[step.node] = step.after;
    }
    REQUIRE(after.size() == 3);
    CHECK(after["hub"].empty());
    CHECK(after["vm2"].empty());
    CHECK(after["client"] == std::vector<std::string>{"hub", "vm2"});
}
