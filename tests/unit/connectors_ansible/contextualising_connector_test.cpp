// What the native contextualisation decorator adds to a ready observation, with a fake site
// and a fake contextualiser (the real Ansible runs are in tests/integration/ansible and on the
// OpenStack rig).
#include <connectors/contextualising_connector.hpp>
#include <tosca/outputs.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>

using orch::Json;
using orch::connectors::ConnectorResult;
using orch::connectors::ContextOutcome;
using orch::connectors::ContextPlan;
using orch::connectors::Observation;

namespace {

/// A site whose one server of node "vm" is ready at 127.0.0.5.
class ReadySite final : public orch::connectors::Connector {
   public:
    /// `deletion`: what Delete answers (kInProgress as Nova's servers on their way out).
    explicit ReadySite(orch::connectors::Deletion deletion = orch::connectors::Deletion::kComplete)
        : deletion_(deletion) {}
    orch::connectors::TargetKind kind() const override { return orch::connectors::TargetKind::kOpenStack; }
    ConnectorResult<orch::connectors::Handle> Create(const orch::connectors::DeployRequest& request) override {
        orch::connectors::Handle handle;
        handle.deployment_id = request.deployment_id;
        return handle;
    }
    ConnectorResult<Observation> Poll(const orch::connectors::Handle&, const orch::tosca::DeploymentSpec&) override {
        Observation o;
        o.phase = orch::connectors::Phase::kReady;
        orch::connectors::InstanceState vm{"vm", 0, "server-1", orch::connectors::InstanceStatus::kStarted};
        vm.attributes = {{"public_address", Json::array({"127.0.0.5"})}, {"private_address", Json::array()}};
        o.instances.push_back(vm);
        o.attributes["vm"] = {{"public_address", Json::array({"127.0.0.5"})}, {"private_address", Json::array()}};
        return o;
    }
    ConnectorResult<orch::connectors::Handle>
    Update(const orch::connectors::Handle& handle, const orch::connectors::DeployRequest&) override {
        return handle;
    }
    ConnectorResult<orch::connectors::Deletion> Delete(const orch::connectors::Handle&, bool) override {
        return deletion_;
    }
    ConnectorResult<bool> Act(const orch::connectors::Handle&, const std::string&, const std::string&) override {
        return true;
    }

   private:
    orch::connectors::Deletion deletion_;
};

class RecordingContextualiser final : public orch::connectors::Contextualiser {
   public:
    ConnectorResult<std::string> PublicKey(const std::string&) override {
        return std::string("ssh-ed25519 AAAAC3 orch");
    }
    ConnectorResult<ContextOutcome> Configure(const ContextPlan& plan, std::stop_token) override {
        plans.push_back(plan);
        return ContextOutcome{"== node docker: configured\n", facts};
    }
    void Forget(const std::string&) override {}
    std::vector<ContextPlan> plans;
    std::vector<orch::connectors::HostFacts> facts;  ///< what the run "gathered"
};

/// A configuration that reports the node "docker" and one of its tasks, then runs until the test
/// lets it end (or it is stopped).
class HeldContextualiser final : public orch::connectors::Contextualiser {
   public:
    ConnectorResult<std::string> PublicKey(const std::string&) override {
        return std::string("ssh-ed25519 AAAAC3 orch");
    }
    ConnectorResult<ContextOutcome> Configure(const ContextPlan& plan, std::stop_token stop) override {
        ++runs;
        plan.progress({"docker", "", ""});
        plan.progress({"docker", "indigo-dc.docker", "Install docker"});
        std::unique_lock lock(mutex);
        released.wait(lock, stop, [&] { return release; });
        if (stop.stop_requested()) {
            ++cancelled;
            return orch::connectors::Failure{orch::connectors::FailureKind::kRetryHere, "configuration cancelled"};
        }
        return ContextOutcome{"== node docker: configured\n", {}};
    }
    void Forget(const std::string&) override {}
    void Release() {
        {
            const std::lock_guard lock(mutex);
            release = true;
        }
        released.notify_all();
    }
    std::atomic<int> runs{0};
    std::atomic<int> cancelled{0};

   private:
    std::mutex mutex;
    std::condition_variable_any released;
    bool release = false;
};

orch::tosca::DeploymentSpec DockerHost() {
    orch::tosca::DeploymentSpec spec;
    orch::tosca::NodeSpec vm;
    vm.name = "vm";
    vm.type = "tosca.nodes.indigo.Compute";
    vm.type_chain = {"tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root"};
    orch::tosca::NodeSpec docker;
    docker.name = "docker";
    docker.type = "tosca.nodes.indigo.Docker";
    docker.type_chain = {"tosca.nodes.indigo.Docker", "tosca.nodes.SoftwareComponent", "tosca.nodes.Root"};
    docker.host_node = "vm";
    docker.requirements.push_back({"host", "vm", "host", "tosca.relationships.HostedOn", Json::object()});
    docker.artifacts = {{"role", {{"type", "tosca.artifacts.AnsibleGalaxy.role"}, {"file", "indigo-dc.docker"}}}};
    spec.nodes = {vm, docker};
    // As elastic_cluster.yaml reads the front end's access.
    spec.outputs.push_back({"creds", "", Json::parse(R"({"get_attribute": ["vm", "endpoint", "credential", 0]})")});
    return spec;
}

}  // namespace

TEST_CASE("a configured VM publishes its SSH access on the endpoint capability, as IM does", "[ansible]") {
    RecordingContextualiser contextualiser;
    orch::connectors::ContextualisingOptions options;
    options.ssh_user = "cloudadm";
    orch::connectors::ContextualisingConnector connector(std::make_unique<ReadySite>(), contextualiser, options);
    const auto spec = DockerHost();
    orch::connectors::Handle handle;
    handle.deployment_id = "dep-1";
    auto polled = connector.Poll(handle, spec);
    REQUIRE(std::holds_alternative<Observation>(polled));
    const auto& observation = std::get<Observation>(polled);
    REQUIRE(observation.phase == orch::connectors::Phase::kReady);
    REQUIRE(contextualiser.plans.size() == 1);

    const Json outputs = orch::tosca::EvaluateOutputs(spec, observation.attributes).values;
    INFO(outputs.dump());
    const Json creds = outputs["creds"];
    CHECK(creds["protocol"] == "ssh");
    CHECK(creds["user"] == "cloudadm");
    CHECK(creds["token_type"] == "public_key");
    CHECK(creds["token"] == "ssh-ed25519 AAAAC3 orch");  // the private key stays with the orchestrator
    CHECK(observation.attributes.at("vm")["public_address"] == Json::array({"127.0.0.5"}));  // kept
}

TEST_CASE("values reading other nodes' addresses reach Ansible evaluated, as IM gives them", "[ansible]") {
    // Before: the property reached the roles as the expression written and the inputs were left
    // out, so a role configuring a cluster never learned its front end's address.
    RecordingContextualiser contextualiser;
    orch::connectors::ContextualisingConnector connector(std::make_unique<ReadySite>(), contextualiser, {});
    auto spec = DockerHost();
    auto& docker = spec.nodes[1];
    docker.properties = {
        {"front_end_ip", Json::parse(R"({"get_attribute": ["vm", "public_address", 0]})")},
        {"label", "plain"},
    };
    docker.operations = {
        {"configure",
         {{"implementation", "https://mirror.example/conf.yml"},
          {"inputs",
           {{"kube_front_end_ip", Json::parse(R"({"get_attribute": ["HOST", "public_address", 0]})")},
            {"docker_ip", Json::parse(R"({"get_attribute": ["SELF", "public_address", 0]})")},
            {"url", Json::parse(R"({"concat": ["http://", {"get_attribute": ["vm", "public_address", 0]}, ":80"]})")},
            {"wn_ips", Json::parse(R"({"get_attribute": ["vm", "public_address"]})")},
            {"unknown", Json::parse(R"({"get_attribute": ["vm", "no_such_attribute", 0]})")}}}}},
    };
    orch::connectors::Handle handle;
    handle.deployment_id = "dep-1";
    auto polled = connector.Poll(handle, spec);
    REQUIRE(std::holds_alternative<Observation>(polled));
    REQUIRE(contextualiser.plans.size() == 1);
    const auto& step = contextualiser.plans[0].steps.at(0);
    REQUIRE(step.node == "docker");
    CHECK(step.vars["front_end_ip"] == "127.0.0.5");
    CHECK(step.vars["label"] == "plain");
    REQUIRE(step.playbooks.size() == 1);
    const Json& inputs = step.playbooks[0].inputs;
    INFO(inputs.dump());
    CHECK(inputs["kube_front_end_ip"] == "127.0.0.5");
    CHECK(inputs["docker_ip"] == "127.0.0.5");  // a software node reads its server's address
    CHECK(inputs["url"] == "http://127.0.0.5:80");
    CHECK(inputs["wn_ips"] == Json::array({"127.0.0.5"}));
    CHECK(inputs["unknown"].is_null());  // never the expression
    CHECK_THAT(std::get<Observation>(polled).log, Catch::Contains("configure input 'unknown' has no value"));
}

TEST_CASE("the facts a configured VM reports become its node's attributes, so outputs read them", "[ansible]") {
    RecordingContextualiser contextualiser;
    contextualiser.facts.push_back(
        {"vm",
         0,
         {{"ansible_distribution", "Ubuntu"},
          {"ansible_hostname", "vm-0"},
          {"ansible_memtotal_mb", 7961},
          {"num_gpus", 2},
          {"gpu_model", "Tesla T4"}}}
    );
    orch::connectors::ContextualisingConnector connector(std::make_unique<ReadySite>(), contextualiser, {});
    auto spec = DockerHost();
    for (const char* fact : {"ansible_distribution", "ansible_hostname", "num_gpus", "gpu_model"}) {
        spec.outputs.push_back({fact, "", Json{{"get_attribute", Json::array({"vm", fact, 0})}}});
    }
    spec.outputs.push_back({"memory", "", Json::parse(R"({"get_attribute": ["vm", "ansible_memtotal_mb"]})")});
    orch::connectors::Handle handle;
    handle.deployment_id = "dep-1";
    auto polled = connector.Poll(handle, spec);
    REQUIRE(std::holds_alternative<Observation>(polled));
    const auto& observation = std::get<Observation>(polled);
    const Json outputs = orch::tosca::EvaluateOutputs(spec, observation.attributes).values;
    INFO(outputs.dump());
    CHECK(outputs["ansible_distribution"] == "Ubuntu");
    CHECK(outputs["ansible_hostname"] == "vm-0");
    CHECK(outputs["num_gpus"] == 2);
    CHECK(outputs["gpu_model"] == "Tesla T4");
    CHECK(outputs["memory"] == Json::array({7961}));  // per instance, as public_address
    REQUIRE(observation.instances.size() == 1);
    CHECK(observation.instances[0].attributes["ansible_distribution"] == "Ubuntu");
    CHECK(observation.attributes.at("vm")["public_address"] == Json::array({"127.0.0.5"}));  // kept
}

TEST_CASE(
    "while the servers are configured, polls say which node and task, then the poll after it ends is ready", "[ansible]"
) {
    // Before: the Poll that found the servers ACTIVE ran the whole configuration and reported
    // nothing until it ended.
    HeldContextualiser contextualiser;
    orch::connectors::ContextualisingOptions options;
    options.progress_wait = std::chrono::milliseconds(50);
    std::atomic<int> changes{0};
    options.changed = [&](const std::string& deployment_id) {
        CHECK(deployment_id == "dep-1");
        ++changes;
    };
    orch::connectors::ContextualisingConnector connector(std::make_unique<ReadySite>(), contextualiser, options);
    const auto spec = DockerHost();
    orch::connectors::Handle handle;
    handle.deployment_id = "dep-1";
    std::string log;
    std::string said;
    const std::string task = "configuring node docker (role indigo-dc.docker, task 'Install docker')";
    for (int poll = 0; poll < 100 && said != task; ++poll) {
        auto polled = connector.Poll(handle, spec);
        REQUIRE(std::holds_alternative<Observation>(polled));
        const auto& observation = std::get<Observation>(polled);
        REQUIRE(observation.phase == orch::connectors::Phase::kInProgress);
        REQUIRE(observation.site_message.has_value());
        said = *observation.site_message;
        CHECK_THAT(said, Catch::StartsWith("configuring node docker"));
        CHECK_THAT(observation.log, Catch::Contains("== configuring node docker\n"));
        log = observation.log;
    }
    CHECK(said == task);
    CHECK(contextualiser.runs == 1);  // one run, however many polls
    CHECK(changes >= 1);              // the node's start made the poll due
    contextualiser.Release();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    Observation last;
    do {
        auto polled = connector.Poll(handle, spec);
        REQUIRE(std::holds_alternative<Observation>(polled));
        last = std::get<Observation>(polled);
    } while (last.phase == orch::connectors::Phase::kInProgress && std::chrono::steady_clock::now() < give_up);
    CHECK(last.phase == orch::connectors::Phase::kReady);
    CHECK(last.log.starts_with(log));  // the log only grows: the workflow appends what is new
    CHECK_THAT(last.log, Catch::Contains("== node docker: configured"));
    CHECK(changes >= 2);  // the end too
    CHECK(contextualiser.runs == 1);
}

TEST_CASE("a DELETE during the configuration stops it, and the next poll says it was cancelled", "[ansible]") {
    HeldContextualiser contextualiser;
    orch::connectors::ContextualisingOptions options;
    options.progress_wait = std::chrono::milliseconds(20);
    orch::connectors::ContextualisingConnector connector(
        std::make_unique<ReadySite>(orch::connectors::Deletion::kInProgress), contextualiser, options
    );
    const auto spec = DockerHost();
    orch::connectors::Handle handle;
    handle.deployment_id = "dep-1";
    auto first = connector.Poll(handle, spec);
    REQUIRE(std::holds_alternative<Observation>(first));
    REQUIRE(std::get<Observation>(first).phase == orch::connectors::Phase::kInProgress);
    REQUIRE(std::holds_alternative<orch::connectors::Deletion>(connector.Delete(handle, false)));
    orch::connectors::ConnectorResult<Observation> polled = Observation{};
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::holds_alternative<Observation>(polled) && std::chrono::steady_clock::now() < give_up) {
        polled = connector.Poll(handle, spec);
    }
    REQUIRE(std::holds_alternative<orch::connectors::Failure>(polled));
    CHECK_THAT(std::get<orch::connectors::Failure>(polled).message, Catch::Contains("cancelled"));
}

TEST_CASE("a DELETE the site completes at once ends the running configuration with it", "[ansible]") {
    // No poll comes after such a delete: the run is stopped and dropped by the Delete itself.
    HeldContextualiser contextualiser;
    orch::connectors::ContextualisingOptions options;
    options.progress_wait = std::chrono::milliseconds(20);
    orch::connectors::ContextualisingConnector connector(std::make_unique<ReadySite>(), contextualiser, options);
    const auto spec = DockerHost();
    orch::connectors::Handle handle;
    handle.deployment_id = "dep-1";
    auto first = connector.Poll(handle, spec);
    REQUIRE(std::holds_alternative<Observation>(first));
    REQUIRE(std::get<Observation>(first).phase == orch::connectors::Phase::kInProgress);
    REQUIRE(std::holds_alternative<orch::connectors::Deletion>(connector.Delete(handle, false)));
    CHECK(contextualiser.cancelled == 1);  // stopped and waited for within the Delete
}
