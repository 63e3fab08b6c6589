// The orchestrator's types profile (tosca/profiles/v1/orchestrator.yaml) checked by our own
// engine: the document itself, templates importing it through the mirror map (no network), and
// the routing table agreeing with every workload type it ships.
#include "tosca/types_profile.hpp"

#include "tosca/target_routing.hpp"
#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>

namespace orch::tosca {
namespace {

constexpr std::string_view kProfileUrl = "https://paas.example.org/types/v1/orchestrator.yaml";

const TemplateEngine& ProfileEngine(Mode mode) {
    const auto options = [](Mode m) {
        EngineOptions o = test::CorpusOptions(m);
        o.mirrors.push_back({"https://paas.example.org/types/", orch::test::SourceDir() + "/tosca/profiles/"});
        return o;
    };
    static const TemplateEngine compat(options(Mode::kCompat));
    static const TemplateEngine strict(options(Mode::kStrict));
    return mode == Mode::kStrict ? strict : compat;
}

TemplateCheck CheckWithProfile(const std::string& nodes, Mode mode) {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\nimports:\n  - orchestrator: " + std::string(kProfileUrl) +
        "\ntopology_template:\n  node_templates:\n" + nodes;
    TemplateRequest request;
    request.file_name = "t.yaml";
    return ProfileEngine(mode).Check(text, request);
}

TEST_CASE("the shipped types profile is a valid TOSCA document with no findings", "[tosca][profile]") {
    const auto profile = OrchestratorTypesProfile("v1");
    REQUIRE(profile.has_value());
    CHECK_FALSE(OrchestratorTypesProfile("v2").has_value());
    for (const Mode mode : {Mode::kCompat, Mode::kStrict}) {
        TemplateRequest request;
        request.file_name = "orchestrator.yaml";
        const auto check = ProfileEngine(mode).Check(*profile, request);
        INFO(test::Dump(check));
        // A types-only document: its one finding says so; anything else is a defect of the profile.
        REQUIRE(check.diagnostics.size() == 1);
        CHECK(check.diagnostics.front().message.find("no topology_template") != std::string::npos);
    }
}

TEST_CASE(
    "GPU workloads written with the shipped types route to Kubernetes with their GPU wishes", "[tosca][profile]"
) {
    const std::string nodes =
        "    web:\n"
        "      type: tosca.nodes.indigo.Kubernetes.Deployment\n"
        "      properties:\n"
        "        volumes: [{name: data, mount_path: /data, size: 1 GiB}]\n"
        "        secrets: [{secret: api-token, key: token, env: API_TOKEN}]\n"
        "      capabilities:\n"
        "        host: {properties: {num_cpus: 1, mem_size: 2 GB, num_gpus: 2, gpu_vendor: NVIDIA, gpu_model: T4, "
        "gpu_memory: 16 GB}}\n"
        "        endpoint: {properties: {ports: {http: {source: 8080}}}}\n"
        "        scalable: {properties: {count: 3}}\n"
        "      artifacts: {image: {file: nginx, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n"
        "    train:\n"
        "      type: tosca.nodes.indigo.Kubernetes.Job\n"
        "      properties: {command: python train.py, retries: 1}\n"
        "      capabilities: {host: {properties: {num_gpus: 1, gpu_model: V100}}}\n"
        "      artifacts: {image: {file: pytorch, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n"
        "    nightly:\n"
        "      type: tosca.nodes.indigo.Kubernetes.CronJob\n"
        "      properties: {command: date, schedule: '30 2 * * *'}\n"
        "      artifacts: {image: {file: busybox, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n";
    for (const Mode mode : {Mode::kCompat, Mode::kStrict}) {
        const auto check = CheckWithProfile(nodes, mode);
        INFO(test::Dump(check));
        REQUIRE(check.spec.has_value());
        const DeploymentSpec& spec = *check.spec;
        CHECK(spec.kind == DeploymentKind::kKubernetes);
        CHECK(spec.WorkloadNodes().size() == 3);
        const NodeSpec& web = *spec.FindNode("web");
        CHECK(web.count == 3);
        CHECK(web.image == "nginx");
        CHECK(web.resources.gpu.count == 2);
        CHECK(web.resources.gpu.vendor == "NVIDIA");
        CHECK(web.resources.gpu.model == "T4");
        CHECK(web.resources.gpu.memory_mb == 16000u);
        REQUIRE(web.ports.size() == 1);
        CHECK(web.ports.front().target == 8080);
        CHECK(web.properties["volumes"][0]["access_mode"] == "ReadWriteOnce");  // the type's default
        CHECK(spec.FindNode("train")->resources.gpu.model == "V100");
        CHECK(spec.FindNode("nightly")->schedule == "30 2 * * *");
    }
}

TEST_CASE("the shipped types refuse what they do not define", "[tosca][profile]") {
    const auto no_schedule = CheckWithProfile(
        "    c: {type: tosca.nodes.indigo.Kubernetes.CronJob, artifacts: {image: {file: busybox, type: "
        "tosca.artifacts.Deployment.Image.Container.Docker}}}\n",
        Mode::kStrict
    );
    INFO(test::Dump(no_schedule));
    CHECK(test::Find(no_schedule, "required property 'schedule'") != nullptr);
    const auto bad_access = CheckWithProfile(
        "    d:\n      type: tosca.nodes.indigo.Kubernetes.Deployment\n"
        "      properties: {volumes: [{name: v, mount_path: /v, size: 1 GB, access_mode: Everything}]}\n",
        Mode::kStrict
    );
    INFO(test::Dump(bad_access));
    CHECK(test::Find(bad_access, "is not one of the valid values", "volumes[0].access_mode") != nullptr);
}

TEST_CASE("a GPU host asks for a GPU model without custom types", "[tosca][profile]") {
    const auto check = CheckWithProfile(
        "    vm:\n      type: tosca.nodes.indigo.Gpu.Compute\n"
        "      capabilities: {host: {properties: {num_cpus: 4, num_gpus: 1, gpu_vendor: NVIDIA, gpu_model: A100}}}\n",
        Mode::kStrict
    );
    INFO(test::Dump(check));
    REQUIRE(check.spec.has_value());
    CHECK(check.spec->kind == DeploymentKind::kVirtualMachines);
    REQUIRE(check.spec->WorkloadNodes().size() == 1);
    CHECK(check.spec->nodes.front().resources.gpu.model == "A100");
}

TEST_CASE(
    "an IAM client node routes with the template's workload and its values reach the service", "[tosca][profile]"
) {
    // A Kubernetes service reads the client the orchestrator registers through get_property; the
    // client node itself runs nowhere, so the deployment goes where its workload goes.
    const std::string nodes =
        "    sso:\n      type: tosca.nodes.indigo.iam.client\n"
        "      properties: {scopes: openid profile, redirect_uris: ['https://svc.example.org/cb'], client_id: c-1, "
        "client_secret: s-1}\n"
        "    web:\n      type: tosca.nodes.indigo.Kubernetes.Deployment\n"
        "      properties:\n"
        "        environment: {OIDC_CLIENT_ID: {get_property: [sso, client_id]}, OIDC_CLIENT_SECRET: {get_property: "
        "[sso, client_secret]}}\n"
        "      artifacts: {image: {file: nginx, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n";
    for (const Mode mode : {Mode::kCompat, Mode::kStrict}) {
        const auto check = CheckWithProfile(nodes, mode);
        INFO(test::Dump(check));
        REQUIRE(check.spec.has_value());
        CHECK(check.spec->kind == DeploymentKind::kKubernetes);
        REQUIRE(check.spec->WorkloadNodes().size() == 1);
        CHECK(check.spec->WorkloadNodes().front()->name == "web");
        const NodeSpec& client = *check.spec->FindNode("sso");
        CHECK(client.properties["scopes"] == "openid profile");
        CHECK(client.properties["redirect_uris"][0] == "https://svc.example.org/cb");
        CHECK(check.spec->FindNode("web")->environment.at("OIDC_CLIENT_SECRET") == "s-1");
    }
    // Alone, it is a template for virtual machines with nothing to place: the engine accepts it.
    const auto alone = CheckWithProfile("    sso: {type: tosca.nodes.indigo.iam.client}\n", Mode::kStrict);
    INFO(test::Dump(alone));
    REQUIRE(alone.spec.has_value());
    CHECK(alone.spec->WorkloadNodes().empty());
}

}  // namespace
}  // namespace orch::tosca
