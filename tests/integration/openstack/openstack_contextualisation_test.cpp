// Native contextualisation on the real OpenStack rig: Nova creates the servers with the
// deployment's key in their cloud-init user data, the rig's fake hypervisor makes each one a
// real sshd on a loopback address of its own (scripts/openstack/orch_vm.py), and the real
// ansible-playbook configures them through the addresses Nova reports. The roles are the small
// INDIGO-named test roles of tests/integration/ansible/roles.
#include "openstack_rig.hpp"

#include <common/uuid.hpp>
#include <connectors/ansible_contextualiser.hpp>
#include <connectors/contextualising_connector.hpp>
#include <connectors/openstack_connector.hpp>

#include <catch2/catch.hpp>
#include <pwd.h>
#include <test_support/test_env.hpp>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <thread>

using namespace std::chrono_literals;
using orch::Json;
using orch::connectors::AnsibleContextualiser;
using orch::connectors::AnsibleOptions;
using orch::connectors::ContextualisingConnector;
using orch::connectors::DeployRequest;
using orch::connectors::Failure;
using orch::connectors::Handle;
using orch::connectors::Observation;
using orch::connectors::Phase;
namespace rig = orch::test::openstack;
namespace fs = std::filesystem;

namespace {

// The rig's Nova is slow on a busy machine; booting includes starting an sshd per server.
constexpr auto kLimit = 300s;

std::string CurrentUser() {
    const passwd* pw = ::getpwuid(::getuid());
    REQUIRE(pw != nullptr);
    return pw->pw_name;
}

orch::tosca::NodeSpec Software(const std::string& name, const std::string& host, const std::string& role) {
    orch::tosca::NodeSpec node;
    node.name = name;
    node.type = "tosca.nodes.indigo.Software";
    node.type_chain = {"tosca.nodes.indigo.Software", "tosca.nodes.SoftwareComponent", "tosca.nodes.Root"};
    node.host_node = host;
    node.requirements.push_back({"host", host, "host", "tosca.relationships.HostedOn", Json::object()});
    node.artifacts = {{"role", {{"type", "tosca.artifacts.AnsibleGalaxy.role"}, {"file", role + ",master"}}}};
    return node;
}

/// A connector stack as main builds it: OpenStack inside native contextualisation.
struct Stack {
    AnsibleOptions options;
    std::unique_ptr<AnsibleContextualiser> contextualiser;
    std::unique_ptr<ContextualisingConnector> connector;
    orch::tosca::DeploymentSpec spec;
    DeployRequest request;

    explicit Stack(int count) {
        options.work_dir = orch::test::BinaryDir() + "/test-openstack-ansible/" + std::to_string(::getpid());
        options.role_dir = orch::test::SourceDir() + "/tests/integration/ansible/roles";
        options.node_time_limit = 180s;
        options.connect_timeout = 20s;
        contextualiser = std::make_unique<AnsibleContextualiser>(options);
        orch::connectors::ContextualisingOptions context;
        // The rig stands in for cloud-init without making accounts: log in as the test's user.
        context.ssh_user = CurrentUser();
        context.ssh_port = rig::Rig()["ssh_port"].get<int>();
        connector = std::make_unique<ContextualisingConnector>(
            std::make_unique<orch::connectors::OpenStackConnector>(
                rig::Clients(), rig::RealClock(), rig::ConnectorOptions()
            ),
            *contextualiser,
            context
        );
        auto vm = rig::VmNode("vm");
        vm.count = count;
        spec.nodes = {vm, Software("docker", "vm", "indigo-dc.docker")};
        spec.nodes.back().properties = {{"docker_data_root", "/var/lib/docker"}};
        spec.inputs = {{"deployment_label", "on-nova"}};
        request.deployment_id = orch::RandomUuid();
        request.spec = &spec;
        request.target = rig::Target(rig::Auth::kPassword);
        request.placements["vm"] = rig::Placement("m1.small");
    }

    Handle Create() {
        auto created = connector->Create(request);
        if (auto* failure = std::get_if<Failure>(&created)) {
            FAIL("Create failed: " << failure->message);
        }
        return std::get<Handle>(created);
    }
};

/// The server's "disk" (orch_vm.py): where the test roles write.
std::string VmRoot(const std::string& server_id) {
    return rig::Rig()["instances_path"].get<std::string>() + "/" + server_id + "/root";
}

void DeleteAndCheck(Stack& stack, const Handle& handle) {
    auto deleted = stack.connector->Delete(handle, false);
    if (auto* failure = std::get_if<Failure>(&deleted)) {
        FAIL("Delete failed: " << failure->message);
    }
    const Observation gone = rig::PollUntil(
        *stack.connector, handle, stack.spec, [](const Observation& o) { return o.phase == Phase::kGone; }, kLimit
    );
    CHECK(gone.phase == Phase::kGone);
    for (const auto& server : handle.state["servers"]) {
        const std::string id = server["id"].get<std::string>();
        CHECK(rig::AdminNovaGet("/servers/" + id).first == 404);
        CHECK_FALSE(fs::exists(VmRoot(id)));  // the "VM" (its sshd and disk) is gone too
    }
}

bool Settled(const Observation& o) {
    return o.phase != Phase::kInProgress;
}

}  // namespace

TEST_CASE("Nova's servers are configured over SSH with the key their user data carried", "[openstack][ansible]") {
    Stack stack(2);
    const Handle handle = stack.Create();
    REQUIRE(handle.state["servers"].size() == 2);
    const Observation ready = rig::PollUntil(*stack.connector, handle, stack.spec, Settled, kLimit);
    INFO(ready.reason << "\n" << ready.log);
    REQUIRE(ready.phase == Phase::kReady);
    CHECK_THAT(ready.log, Catch::Contains("== node docker: configured"));
    for (const auto& server : handle.state["servers"]) {
        const std::string id = server["id"].get<std::string>();
        const auto [status, body] = rig::AdminNovaGet("/servers/" + id);
        REQUIRE(status == 200);
        // The address Ansible used is the one Nova lists.
        const std::string address = body["server"]["addresses"]["orch-loopback"][0]["addr"].get<std::string>();
        CHECK_THAT(address, Catch::StartsWith("127."));
        const std::string root = VmRoot(id);
        const Json daemon = Json::parse(orch::test::ReadFile(root + "/etc/docker/daemon.json"));
        CHECK(daemon["label"] == "on-nova");
        CHECK(orch::test::ReadFile(root + "/run/docker.active") == "active\n");
    }
    DeleteAndCheck(stack, handle);
}

TEST_CASE("a failing role on Nova's server fails the attempt with the task's message", "[openstack][ansible]") {
    Stack stack(1);
    stack.spec.nodes.push_back(Software("marker", "docker", "indigo-dc.broken"));
    const Handle handle = stack.Create();
    const Observation failed = rig::PollUntil(*stack.connector, handle, stack.spec, Settled, kLimit);
    INFO(failed.log);
    REQUIRE(failed.phase == Phase::kFailed);
    CHECK(failed.failure == orch::connectors::FailureKind::kTryAnotherSite);
    CHECK_THAT(failed.reason, Catch::Contains("marker service refused to start on purpose"));
    DeleteAndCheck(stack, handle);
}

namespace {

/// Whether any process still runs with `text` in its command line (ansible-playbook runs with
/// the deployment's work directory in its arguments).
bool ProcessMentions(const std::string& text) {
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos || name == std::to_string(::getpid())) {
            continue;
        }
        std::string cmdline;
        try {
            cmdline = orch::test::ReadFile(entry.path().string() + "/cmdline");
        } catch (const std::exception&) {
            continue;  // gone meanwhile
        }
        if (cmdline.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("DELETE during the configuration stops ansible-playbook and deletes the servers", "[openstack][ansible]") {
    Stack stack(1);
    stack.spec.nodes.push_back(Software("slow", "docker", "indigo-dc.slow"));
    const Handle handle = stack.Create();
    std::optional<orch::connectors::ConnectorResult<Observation>> polled;
    std::thread poller([&] {
        const auto give_up = std::chrono::steady_clock::now() + kLimit;
        while (std::chrono::steady_clock::now() < give_up) {
            auto result = stack.connector->Poll(handle, stack.spec);
            const auto* o = std::get_if<Observation>(&result);
            if (o == nullptr || o->phase != Phase::kInProgress) {
                polled = std::move(result);
                return;
            }
            std::this_thread::sleep_for(500ms);
        }
    });
    // The docker node is configured first: once its marker is on the server, the slow node's
    // ansible-playbook is starting or running (it sleeps 20 s).
    const std::string id = handle.state["servers"][0]["id"].get<std::string>();
    const auto give_up = std::chrono::steady_clock::now() + kLimit;
    while (!fs::exists(VmRoot(id) + "/run/docker.active") && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(200ms);
    }
    REQUIRE(fs::exists(VmRoot(id) + "/run/docker.active"));
    std::this_thread::sleep_for(3s);
    REQUIRE(ProcessMentions(stack.options.work_dir));  // Ansible runs now
    auto deleted = stack.connector->Delete(handle, false);
    REQUIRE(std::holds_alternative<orch::connectors::Deletion>(deleted));
    poller.join();
    REQUIRE(polled.has_value());
    // The poll that ends the wait never reports the deployment ready: it says the configuration
    // was cancelled (a failure, or the failed state), or that the servers are gone when the
    // delete removed them before that poll (the run is stopped by Delete since it runs apart).
    const std::string said = std::holds_alternative<Failure>(*polled) ? std::get<Failure>(*polled).message
                                                                      : std::get<Observation>(*polled).reason;
    INFO(said);
    const auto* last = std::get_if<Observation>(&*polled);
    CHECK((last == nullptr || last->phase != Phase::kReady));
    CHECK((said.find("cancelled") != std::string::npos || (last != nullptr && last->phase == Phase::kGone)));
    CHECK_FALSE(ProcessMentions(stack.options.work_dir));
    const Observation gone = rig::PollUntil(
        *stack.connector, handle, stack.spec, [](const Observation& o) { return o.phase == Phase::kGone; }, kLimit
    );
    CHECK(gone.phase == Phase::kGone);
    CHECK(rig::AdminNovaGet("/servers/" + id).first == 404);
    CHECK_FALSE(fs::exists(VmRoot(id)));
}
