// Native contextualisation end to end on this machine: real sshd "servers" on loopback
// addresses, the real ansible-playbook, the test roles under roles/.
#include "ssh_host.hpp"

#include <connectors/ansible_contextualiser.hpp>
#include <connectors/contextualiser.hpp>
#include <connectors/contextualising_connector.hpp>
#include <connectors/openstack_server.hpp>
#include <tosca/engine.hpp>

#include <catch2/catch.hpp>
#include <test_support/test_env.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

using orch::Json;
using orch::connectors::AnsibleContextualiser;
using orch::connectors::AnsibleOptions;
using orch::connectors::ContextHost;
using orch::connectors::ContextOutcome;
using orch::connectors::ContextPlan;
using orch::connectors::Failure;
using orch::connectors::FailureKind;
using orch::test::ansible::SshHost;

namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
    static std::atomic<int> counter{0};
    const std::string dir = orch::test::BinaryDir() + "/test-ansible/" + name + "-" + std::to_string(::getpid()) + "-" +
                            std::to_string(counter++);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

orch::tosca::NodeSpec Vm(const std::string& name, int count) {
    orch::tosca::NodeSpec node;
    node.name = name;
    node.type = "tosca.nodes.indigo.Compute";
    node.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    node.count = count;
    return node;
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

std::string Read(const std::string& path) {
    return fs::exists(path) ? orch::test::ReadFile(path) : std::string("<missing " + path + ">");
}

/// A deployment of `vm_count` servers, each a real sshd accepting the deployment's key.
struct Rig {
    std::string dir = FreshDir("deployment");
    std::string deployment_id = "0f5c1d2e-aaaa-4bbb-8ccc-" + std::to_string(100000000000 + ::getpid());
    AnsibleOptions options;
    std::unique_ptr<AnsibleContextualiser> contextualiser;
    std::vector<std::unique_ptr<SshHost>> servers;
    orch::tosca::DeploymentSpec spec;

    explicit Rig(int vm_count) {
        options.work_dir = dir + "/orchestrator";
        options.role_dir = orch::test::SourceDir() + "/tests/integration/ansible/roles";
        options.connect_timeout = std::chrono::seconds(5);
        options.node_time_limit = std::chrono::seconds(120);
        contextualiser = std::make_unique<AnsibleContextualiser>(options);
        auto key = contextualiser->PublicKey(deployment_id);
        REQUIRE(std::holds_alternative<std::string>(key));
        for (int i = 0; i < vm_count; ++i) {
            servers.push_back(std::make_unique<SshHost>(
                dir + "/vm-" + std::to_string(i), orch::test::ansible::LoopbackAddress(i), std::get<std::string>(key)
            ));
        }
        spec.nodes.push_back(Vm("vm", vm_count));
        spec.inputs = {{"deployment_label", "demo"}};
    }

    ContextPlan Plan() {
        ContextPlan plan;
        plan.deployment_id = deployment_id;
        plan.ssh_user = orch::test::ansible::CurrentUser();
        for (std::size_t i = 0; i < servers.size(); ++i) {
            plan.hosts.push_back({"vm", static_cast<int>(i), servers[i]->address(), servers[i]->port()});
        }
        auto steps = orch::connectors::BuildContextSteps(spec);
        REQUIRE(std::holds_alternative<std::vector<orch::connectors::ContextStep>>(steps));
        plan.steps = std::get<std::vector<orch::connectors::ContextStep>>(steps);
        return plan;
    }

    orch::connectors::ConnectorResult<ContextOutcome> Configure(std::stop_token stop = {}) {
        return contextualiser->Configure(Plan(), stop);
    }
};

const ContextOutcome& Succeeded(const orch::connectors::ConnectorResult<ContextOutcome>& result) {
    if (const auto* failure = std::get_if<Failure>(&result)) {
        FAIL(failure->message);
    }
    return std::get<ContextOutcome>(result);
}

const Failure& Failed(const orch::connectors::ConnectorResult<ContextOutcome>& result) {
    REQUIRE(std::holds_alternative<Failure>(result));
    return std::get<Failure>(result);
}

// A line of a small system file ("MemTotal:", "ID="), empty when absent.
std::string SystemValue(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) == 0) {
            std::string value = line.substr(key.size());
            value.erase(0, value.find_first_not_of(" \t\""));
            value.erase(value.find_last_not_of(" \t\"kB") + 1);
            return value;
        }
    }
    return {};
}

// The "servers" are this machine behind sshd: what Ansible gathered there must be what this
// machine says about itself (issue 18: natively configured VMs gave only addresses).
void CheckFacts(const ContextOutcome& outcome, std::size_t servers) {
    REQUIRE(outcome.facts.size() == servers);
    char host[256] = {};
    REQUIRE(::gethostname(host, sizeof host - 1) == 0);
    std::string short_name = host;
    short_name = short_name.substr(0, short_name.find('.'));
    std::string distribution = SystemValue("/etc/os-release", "ID=");
    for (std::size_t i = 0; i < servers; ++i) {
        const auto& facts = outcome.facts[i];
        INFO(facts.facts.dump());
        CHECK(facts.node == "vm");
        CHECK(facts.index == static_cast<int>(i));
        CHECK(facts.facts.value("ansible_hostname", "") == short_name);
        std::string seen = facts.facts.value("ansible_distribution", "");
        std::transform(seen.begin(), seen.end(), seen.begin(), [](unsigned char c) { return std::tolower(c); });
        CHECK(seen == distribution);
        const long long mem_kb = std::stoll("0" + SystemValue("/proc/meminfo", "MemTotal:"));
        CHECK(facts.facts.value("ansible_memtotal_mb", -1LL) == mem_kb / 1024);
        CHECK(facts.facts.value("ansible_processor_vcpus", 0) > 0);
        if (std::system("command -v nvidia-smi >/dev/null 2>&1") != 0) {
            CHECK_FALSE(facts.facts.contains("num_gpus"));  // unknown, not 0
        }
        // Nothing but the documented facts comes back, each a scalar (bounded).
        static const std::set<std::string> kDocumented = {
            "ansible_hostname",
            "ansible_fqdn",
            "ansible_distribution",
            "ansible_distribution_version",
            "ansible_distribution_release",
            "ansible_os_family",
            "ansible_system",
            "ansible_kernel",
            "ansible_architecture",
            "ansible_memtotal_mb",
            "ansible_processor_vcpus",
            "num_gpus",
            "gpu_model",
            "gpu_models"};
        for (const auto& [name, value] : facts.facts.items()) {
            CHECK(kDocumented.count(name) == 1);
            CHECK((value.is_primitive() || name == "gpu_models"));
        }
    }
}

}  // namespace

TEST_CASE(
    "native contextualisation configures the software nodes in dependency order on every server",
    "[ansible][integration]"
) {
    Rig rig(2);
    const std::string canary = rig.dir + "/jinja-ran-on-the-orchestrator";
    // Listed before the docker node it is hosted on: the order must come from HostedOn.
    auto jupyter = Software("jupyterhub", "docker", "indigo-dc.jupyterhub");
    jupyter.properties = {{"jupyterhub_port", 8000}};
    auto docker = Software("docker", "vm", "indigo-dc.docker");
    // Template text reaches Ansible as data: this must be written as is, never run.
    docker.properties = {{"docker_data_root", "/data/{{ lookup('pipe', 'touch " + canary + "') }}"}};
    rig.spec.nodes.insert(rig.spec.nodes.begin(), {jupyter, docker});

    const auto plan = rig.Plan();
    REQUIRE(plan.steps.size() == 2);
    CHECK(plan.steps[0].node == "docker");
    CHECK(plan.steps[1].node == "jupyterhub");
    CHECK(plan.steps[1].host_node == "vm");

    const ContextOutcome first = Succeeded(rig.Configure());
    for (const auto& server : rig.servers) {
        const Json daemon = Json::parse(Read(server->root() + "/etc/docker/daemon.json"));
        CHECK(daemon["data-root"] == "/data/{{ lookup('pipe', 'touch " + canary + "') }}");
        CHECK(daemon["label"] == "demo");
        CHECK(Read(server->root() + "/run/docker.active") == "active\n");
        CHECK(Read(server->root() + "/etc/jupyterhub/jupyterhub_config.py") == "c.JupyterHub.port = 8000\n");
    }
    CHECK_FALSE(fs::exists(canary));
    CHECK_THAT(first.log, Catch::Contains("== node docker on vm: roles indigo-dc.docker"));
    CHECK_THAT(first.log, Catch::Contains("== node jupyterhub: configured"));
    CHECK_THAT(first.log, Catch::Contains("orch_vm_0") && Catch::Contains("orch_vm_1"));
    CHECK_THAT(first.log, !Catch::Contains("changed=0 "));
    CheckFacts(first, rig.servers.size());

    // A re-run (after a crash, or a retried step) changes nothing.
    const ContextOutcome again = Succeeded(rig.Configure());
    std::size_t recaps = 0;
    for (std::size_t at = again.log.find("changed="); at != std::string::npos;
         at = again.log.find("changed=", at + 1)) {
        CHECK(again.log.compare(at, 10, "changed=0 ") == 0);
        ++recaps;
    }
    CHECK(recaps == 4);  // two nodes, two servers each

    // Forgetting the deployment removes its key and files.
    rig.contextualiser->Forget(rig.deployment_id);
    CHECK_FALSE(fs::exists(rig.options.work_dir + "/" + rig.deployment_id));
}

TEST_CASE("a failing role fails the run with the task's message", "[ansible][integration]") {
    Rig rig(1);
    rig.spec.nodes.push_back(Software("docker", "vm", "indigo-dc.docker"));
    rig.spec.nodes.back().properties = {{"docker_data_root", "/var/lib/docker"}};
    rig.spec.nodes.push_back(Software("marker", "docker", "indigo-dc.broken"));
    const Failure failure = Failed(rig.Configure());
    CHECK(failure.kind == FailureKind::kTryAnotherSite);
    CHECK_THAT(
        failure.message,
        Catch::Contains("node 'marker'") && Catch::Contains("marker service refused to start on purpose")
    );
    // The node before it was configured.
    CHECK(Read(rig.servers[0]->root() + "/run/docker.active") == "active\n");
}

TEST_CASE("an unreachable server fails the run with Ansible's message", "[ansible][integration]") {
    Rig rig(0);
    rig.spec.nodes = {Vm("vm", 1), Software("docker", "vm", "indigo-dc.docker")};
    auto plan = rig.Plan();
    plan.hosts.push_back({"vm", 0, orch::test::ansible::LoopbackAddress(99), orch::test::FreePort()});
    const auto result = rig.contextualiser->Configure(plan, {});
    const Failure failure = Failed(result);
    CHECK(failure.kind == FailureKind::kTryAnotherSite);
    CHECK_THAT(failure.message, Catch::Contains("UNREACHABLE"));
}

TEST_CASE("a role that is not in the role source is the template's error", "[ansible][integration]") {
    Rig rig(1);
    rig.spec.nodes.push_back(Software("thing", "vm", "indigo-dc.no-such-role"));
    const Failure failure = Failed(rig.Configure());
    CHECK(failure.kind == FailureKind::kUserError);
    CHECK_THAT(failure.message, Catch::Contains("indigo-dc.no-such-role"));
}

TEST_CASE("ansible-playbook is bounded in time and stops when cancelled", "[ansible][integration]") {
    Rig rig(1);
    rig.spec.nodes.push_back(Software("slow", "vm", "indigo-dc.slow"));
    SECTION("time limit") {
        rig.options.node_time_limit = std::chrono::seconds(4);
        rig.contextualiser = std::make_unique<AnsibleContextualiser>(rig.options);
        const auto started = std::chrono::steady_clock::now();
        const Failure failure = Failed(rig.Configure());
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
        CHECK(failure.kind == FailureKind::kTryAnotherSite);
        CHECK_THAT(failure.message, Catch::Contains("did not finish within 4 s"));
    }
    SECTION("cancel") {
        std::stop_source stop;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::seconds(2));
            stop.request_stop();
        });
        const auto started = std::chrono::steady_clock::now();
        const auto result = rig.Configure(stop.get_token());
        canceller.join();
        CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(12));
        const Failure failure = Failed(result);
        CHECK(failure.kind == FailureKind::kRetryHere);
        CHECK_THAT(failure.message, Catch::Contains("cancelled"));
    }
}

namespace {

constexpr std::string_view kTypesPrefix = "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/";

/// An INDIGO-style interface playbook, written for IM (localhost, connection local): it must run
/// on the server, where sshd sets ORCH_VM_DIR (on the orchestrator printenv would fail).
constexpr std::string_view kHubPlaybook =
    "---\n"
    "- hosts: localhost\n"
    "  connection: local\n"
    "  gather_facts: false\n"
    "  tasks:\n"
    "    - name: this server's directory\n"
    "      ansible.builtin.command: printenv ORCH_VM_DIR\n"
    "      register: vm\n"
    "      changed_when: false\n"
    "    - name: the spawner the operation's inputs name\n"
    "      ansible.builtin.copy:\n"
    "        dest: \"{{ vm.stdout }}/hub-spawner\"\n"
    "        content: \"{{ jupyterhub_spawner }} {{ deployment_label }}\\n\"\n"
    "        mode: \"0644\"\n";

/// A mirror directory for kTypesPrefix holding kHubPlaybook, and an engine reading through it.
struct PlaybookMirror {
    explicit PlaybookMirror(const std::string& dir) : engine(Options(dir)) {
        fs::create_directories(dir + "/artifacts/jupyter");
        std::ofstream(dir + "/artifacts/jupyter/jupyterhub_install.yml") << kHubPlaybook;
    }
    static orch::tosca::EngineOptions Options(const std::string& dir) {
        orch::tosca::EngineOptions options;
        options.mirrors.push_back({std::string(kTypesPrefix), dir + "/"});
        return options;  // no allowed host and no HTTP client: nothing else is ever fetched
    }
    orch::tosca::TemplateEngine engine;
};

}  // namespace

TEST_CASE(
    "an interface playbook from the mirror runs on the node's servers after its roles, with its inputs",
    "[ansible][integration]"
) {
    Rig rig(1);
    PlaybookMirror mirror(rig.dir + "/mirror");
    rig.options.read_playbook = [&](const std::string& url) {
        return mirror.engine.ReadUrl(url);
    };
    rig.contextualiser = std::make_unique<AnsibleContextualiser>(rig.options);
    auto hub = Software("hub", "vm", "indigo-dc.docker");
    hub.properties = {{"docker_data_root", "/var/lib/docker"}};
    const std::string canary = rig.dir + "/jinja-ran";
    hub.operations = {
        {"configure",
         {{"implementation", std::string(kTypesPrefix) + "artifacts/jupyter/jupyterhub_install.yml"},
          {"inputs", {{"jupyterhub_spawner", "local{{ lookup('pipe', 'touch " + canary + "') }}"}}}}},
    };
    rig.spec.nodes.push_back(hub);

    const ContextOutcome outcome = Succeeded(rig.Configure());
    const std::string root = rig.servers[0]->root();
    CHECK(Read(root + "/run/docker.active") == "active\n");  // the role ran
    CHECK(Read(root + "/hub-spawner") == "local{{ lookup('pipe', 'touch " + canary + "') }} demo\n");
    CHECK_FALSE(fs::exists(canary));
    CHECK_THAT(outcome.log, Catch::Contains("configure " + std::string(kTypesPrefix)));

    SECTION("a playbook outside the mirror and allow-list is refused before anything runs") {
        rig.spec.nodes.back().operations["configure"]["implementation"] = "https://evil.example/x.yml";
        fs::remove(root + "/run/docker.active");
        const Failure failure = Failed(rig.Configure());
        CHECK(failure.kind == FailureKind::kUserError);
        CHECK_THAT(failure.message, Catch::Contains("https://evil.example/x.yml"));
        CHECK_FALSE(fs::exists(root + "/run/docker.active"));
    }
    SECTION("a playbook that imports files of the orchestrator is refused") {
        std::ofstream(rig.dir + "/mirror/artifacts/jupyter/jupyterhub_install.yml")
            << "- import_playbook: /etc/ansible/site.yml\n";
        const Failure failure = Failed(rig.Configure());
        CHECK(failure.kind == FailureKind::kUserError);
        CHECK_THAT(failure.message, Catch::Contains("import_playbook"));
    }
}

namespace {

/// A VM site that boots "servers" as real sshd processes accepting the key of the create
/// request's cloud-init (as cloud-init would install it), all reported ACTIVE at once.
class SshdSite final : public orch::connectors::Connector {
   public:
    explicit SshdSite(std::string dir) : dir_(std::move(dir)) {}
    orch::connectors::TargetKind kind() const override { return orch::connectors::TargetKind::kOpenStack; }

    orch::connectors::ConnectorResult<orch::connectors::Handle> Create(const orch::connectors::DeployRequest& r
    ) override {
        seen_key = r.ssh_public_key;
        seen_user = r.ssh_user;
        for (const auto& node : r.spec->nodes) {
            for (int i = 0; orch::connectors::IsVirtualMachineNode(node) && i < node.count; ++i) {
                servers_.push_back(std::make_unique<SshHost>(
                    dir_ + "/" + node.name + "-" + std::to_string(i),
                    orch::test::ansible::LoopbackAddress(static_cast<int>(10 + servers_.size())),
                    r.ssh_public_key
                ));
                names_.emplace_back(node.name, i);
            }
        }
        orch::connectors::Handle handle;
        handle.deployment_id = r.deployment_id;
        handle.target = r.target;
        return handle;
    }
    orch::connectors::ConnectorResult<orch::connectors::Observation> Poll(
        const orch::connectors::Handle& handle, const orch::tosca::DeploymentSpec& /*spec*/
    ) override {
        orch::connectors::Observation observation;
        observation.phase = orch::connectors::Phase::kReady;
        for (std::size_t i = 0; i < servers_.size(); ++i) {
            observation.instances.push_back(
                {names_[i].first,
                 names_[i].second,
                 "id-" + std::to_string(i),
                 orch::connectors::InstanceStatus::kStarted,
                 Json{{"private_address", Json::array({servers_[i]->address()})}}}
            );
        }
        (void)handle;
        return observation;
    }
    orch::connectors::ConnectorResult<orch::connectors::Handle> Update(
        const orch::connectors::Handle& handle, const orch::connectors::DeployRequest& /*r*/
    ) override {
        return handle;
    }
    orch::connectors::ConnectorResult<orch::connectors::Deletion> Delete(const orch::connectors::Handle&, bool)
        override {
        servers_.clear();
        return orch::connectors::Deletion::kComplete;
    }
    orch::connectors::ConnectorResult<bool> Act(const orch::connectors::Handle&, const std::string&, const std::string&)
        override {
        return true;
    }

    int port(std::size_t i) const { return servers_.at(i)->port(); }
    const SshHost& server(std::size_t i) const { return *servers_.at(i); }
    std::string seen_key, seen_user;

   private:
    std::string dir_;
    std::vector<std::unique_ptr<SshHost>> servers_;
    std::vector<std::pair<std::string, int>> names_;
};

}  // namespace

TEST_CASE(
    "a VM connector with contextualisation: key through the create request, configured when ACTIVE, "
    "a failed role fails the attempt",
    "[ansible][integration]"
) {
    using orch::connectors::ContextualisingConnector;
    const std::string dir = FreshDir("connector");
    AnsibleOptions options;
    options.work_dir = dir + "/orchestrator";
    options.role_dir = orch::test::SourceDir() + "/tests/integration/ansible/roles";
    options.connect_timeout = std::chrono::seconds(5);
    AnsibleContextualiser contextualiser(options);
    auto site = std::make_unique<SshdSite>(dir);
    SshdSite& sshd = *site;
    ContextualisingConnector connector(std::move(site), contextualiser, {});

    orch::tosca::DeploymentSpec spec;
    spec.nodes = {
        Vm("vm", 1), Software("docker", "vm", "indigo-dc.docker"), Software("front", "vm", "indigo-dc.frontend_check")};
    spec.nodes[1].properties = {{"docker_data_root", "/srv/docker"}};
    // Read from the servers' addresses once they are known, as IM does (elastic_cluster.yaml).
    spec.nodes[2].properties = {{"front_end_ip", Json::parse(R"({"get_attribute": ["vm", "private_address", 0]})")}};
    spec.inputs = {{"deployment_label", "through-the-connector"}};
    orch::connectors::DeployRequest request;
    request.deployment_id = "6a1f0c3e-1111-4222-8333-" + std::to_string(100000000000 + ::getpid());
    request.spec = &spec;
    request.target.service_id = "openstack-site-a";
    request.target.options = {{"ssh_user", orch::test::ansible::CurrentUser()}};

    auto created = connector.Create(request);
    REQUIRE(std::holds_alternative<orch::connectors::Handle>(created));
    CHECK_THAT(sshd.seen_key, Catch::StartsWith("ssh-ed25519 "));
    CHECK(sshd.seen_user == orch::test::ansible::CurrentUser());
    auto handle = std::get<orch::connectors::Handle>(created);
    handle.target.options["ssh_port"] = sshd.port(0);

    // The configuration runs on its own thread: each poll waits a little for it, then says it is
    // in progress (with the node being configured) until the play has ended.
    const auto poll_until_settled = [&] {
        auto polled = connector.Poll(handle, spec);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
        while (std::holds_alternative<orch::connectors::Observation>(polled) &&
               std::get<orch::connectors::Observation>(polled).phase == orch::connectors::Phase::kInProgress &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            polled = connector.Poll(handle, spec);
        }
        return polled;
    };

    SECTION("configured before it is reported ready, with Ansible's output in the log") {
        auto polled = poll_until_settled();
        REQUIRE(std::holds_alternative<orch::connectors::Observation>(polled));
        const auto& observation = std::get<orch::connectors::Observation>(polled);
        CHECK(observation.phase == orch::connectors::Phase::kReady);
        CHECK_THAT(observation.log, Catch::Contains("== node docker: configured") && Catch::Contains("PLAY RECAP"));
        CHECK(Json::parse(Read(sshd.server(0).root() + "/etc/docker/daemon.json"))["label"] == "through-the-connector");
        CHECK(Read(sshd.server(0).root() + "/front_end_ip") == sshd.server(0).address() + "\n");

        const std::string key_dir =
            options.work_dir + "/" + orch::connectors::ContextId(request.deployment_id, "openstack-site-a");
        CHECK(fs::exists(key_dir + "/id_ed25519"));
        REQUIRE(std::holds_alternative<orch::connectors::Deletion>(connector.Delete(handle, false)));
        CHECK_FALSE(fs::exists(key_dir));
    }
    SECTION("a failing role makes the attempt fail with the task's message, for the next site") {
        spec.nodes.push_back(Software("marker", "docker", "indigo-dc.broken"));
        auto polled = poll_until_settled();
        REQUIRE(std::holds_alternative<orch::connectors::Observation>(polled));
        const auto& observation = std::get<orch::connectors::Observation>(polled);
        CHECK(observation.phase == orch::connectors::Phase::kFailed);
        CHECK(observation.failure == FailureKind::kTryAnotherSite);
        CHECK_THAT(observation.reason, Catch::Contains("marker service refused to start on purpose"));
    }
}
