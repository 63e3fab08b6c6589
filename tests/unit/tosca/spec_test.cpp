#include "spec/spec_builder.hpp"
#include "tosca/report.hpp"
#include "tosca_test_util.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

namespace orch::tosca {
namespace {

using test::Check;
using test::Dump;
using test::Template;

const DeploymentSpec& SpecOf(const TemplateCheck& check) {
    INFO(Dump(check));
    REQUIRE(check.spec.has_value());
    return *check.spec;
}

TEST_CASE("Marathon app on a GPU Docker runtime (DEEP-OC style)", "[tosca][spec]") {
    const auto check = Check(
        Template(
            "    Docker:\n"
            "      type: tosca.nodes.indigo.Container.Runtime.Docker\n"
            "      capabilities:\n"
            "        host:\n"
            "          properties:\n"
            "            num_cpus: 2\n"
            "            mem_size: 4096 MB\n"
            "            num_gpus: { get_input: num_gpus }\n"
            "            publish_ports: [{protocol: tcp, source: 5000}, {source: 6006, target: 31006}]\n"
            "            volumes: ['/data:rw', 'vol1:/scratch:rw:rexray:dvdi']\n"
            "    marathon:\n"
            "      type: tosca.nodes.indigo.Container.Application.Docker.Marathon\n"
            "      properties:\n"
            "        command: deepaas-run --listen-ip=0.0.0.0\n"
            "        environment_variables: {MODE: train, EPOCHS: 10}\n"
            "        labels: {HAPROXY_GROUP: external}\n"
            "        privileged: { get_input: privileged }\n"
            "      artifacts:\n"
            "        image: {file: deephdc/deep-oc-plants, type: tosca.artifacts.Deployment.Image.Container.Docker}\n"
            "      requirements:\n"
            "        - host: {node: Docker, capability: tosca.capabilities.indigo.Container.Docker, relationship: "
            "tosca.relationships.HostedOn}\n",
            "    num_gpus: {type: integer, default: 1}\n    privileged: {type: string, default: false, constraints: "
            "[{valid_values: [false, true]}]}\n"
        ),
        Json::parse(R"({"num_gpus": 2})")
    );
    const DeploymentSpec& spec = SpecOf(check);
    CHECK(spec.kind == DeploymentKind::kMarathon);
    CHECK(OriginalDeploymentTypeName(spec.kind) == "MARATHON");
    const auto workloads = spec.WorkloadNodes();
    REQUIRE(workloads.size() == 1);
    const NodeSpec& app = *workloads.front();
    CHECK(app.name == "marathon");
    CHECK(app.host_node == "Docker");
    CHECK(app.count == 1);
    CHECK(app.resources.cpus == 2.0);
    CHECK(app.resources.mem_mb == 4096u);
    CHECK(app.resources.gpu.count == 2);
    CHECK(app.image == "deephdc/deep-oc-plants");
    CHECK(app.command == "deepaas-run --listen-ip=0.0.0.0");
    CHECK(app.environment == std::map<std::string, std::string>{{"EPOCHS", "10"}, {"MODE", "train"}});
    CHECK(app.labels.at("HAPROXY_GROUP") == "external");
    CHECK_FALSE(app.privileged);
    CHECK(app.force_pull_image);  // the Marathon type's default
    REQUIRE(app.ports.size() == 2);
    CHECK(app.ports[0].target == 5000);
    CHECK_FALSE(app.ports[0].published.has_value());
    CHECK(app.ports[1].published == 31006);
    REQUIRE(app.volumes.size() == 2);
    CHECK(app.volumes[0].container_path == "/data");
    CHECK(app.volumes[0].mode == "RW");
    CHECK(app.volumes[1].container_path == "/scratch");
    CHECK(app.volumes[1].host_path.empty());
    CHECK(DerivesFrom(app, "tosca.nodes.indigo.Container.Application.Docker"));
    CHECK(DerivesFrom(app, "tosca.nodes.Container.Application"));
    CHECK(DerivesFrom(app, "Root"));
    CHECK_FALSE(DerivesFrom(app, "tosca.nodes.Compute"));
    CHECK(spec.NodesOfType("tosca.nodes.indigo.Container.Runtime.Docker").size() == 1);
}

TEST_CASE("VM with GPU flavour wishes, OS image and scaling", "[tosca][spec]") {
    const auto check = Check(Template(
        "    wn:\n"
        "      type: tosca.nodes.indigo.Compute\n"
        "      capabilities:\n"
        "        host: {properties: {num_cpus: 8, mem_size: 16 GiB, disk_size: 100 GB, num_gpus: 1, gpu_vendor: "
        "NVIDIA, gpu_model: T4, instance_type: g1.large}}\n"
        "        os: {properties: {type: linux, distribution: ubuntu, version: 22.04, image: ubuntu-22.04-cuda, "
        "cuda_support: true}}\n"
        "        scalable: {properties: {count: 3, min_instances: 1, max_instances: 5, removal_list: [id-1, id-2]}}\n"
        "        endpoint: {properties: {ports: {ssh: {protocol: tcp, source: 22, remote_cidr: 10.0.0.0/8}}}}\n"
    ));
    const DeploymentSpec& spec = SpecOf(check);
    CHECK(spec.kind == DeploymentKind::kVirtualMachines);
    CHECK(OriginalDeploymentTypeName(spec.kind) == "TOSCA");
    const NodeSpec& wn = spec.nodes.front();
    CHECK(spec.WorkloadNodes().size() == 1);
    CHECK(wn.count == 3);
    CHECK(wn.min_instances == 1);
    CHECK(wn.max_instances == 5);
    CHECK(wn.removal_list == std::vector<std::string>{"id-1", "id-2"});
    CHECK(wn.resources.cpus == 8.0);
    CHECK(wn.resources.mem_mb == 17180u);  // 16 GiB in (decimal) MB, rounded up
    CHECK(wn.resources.disk_mb == 100000u);
    CHECK(wn.resources.gpu.count == 1);
    CHECK(wn.resources.gpu.vendor == "NVIDIA");
    CHECK(wn.resources.gpu.model == "T4");
    CHECK(wn.resources.instance_type == "g1.large");
    CHECK(wn.resources.os_distribution == "ubuntu");
    CHECK(wn.resources.os_version == "22.04");
    CHECK(wn.resources.cuda_support);
    CHECK(wn.image == "ubuntu-22.04-cuda");
    REQUIRE(wn.ports.size() == 1);
    CHECK(wn.ports[0].name == "ssh");
    CHECK(wn.ports[0].target == 22);
    CHECK(wn.ports[0].remote_cidr == "10.0.0.0/8");
    CHECK(DerivesFrom(wn, "Compute"));
    CHECK(DerivesFrom(wn, "tosca:Compute"));
    Json report = CheckReport(check);
    CHECK(report["kind"] == "VIRTUAL_MACHINES");
    CHECK(
        report["nodes"][0] == Json::parse(R"({"name":"wn","type":"tosca.nodes.indigo.Compute","count":3,
        "requirements":{"cpus":8.0,"mem_mb":17180,"disk_mb":100000,"gpus":1,"gpu_vendor":"NVIDIA","gpu_model":"T4"}})")
    );
}

TEST_CASE("software hosted on a VM takes the VM's resources", "[tosca][spec]") {
    const auto check =
        Check(Template("    fe:\n      type: tosca.nodes.indigo.LRMS.FrontEnd.Slurm\n      properties: {wn_ips: []}\n  "
                       "    requirements: [{host: vm}]\n"
                       "    vm:\n      type: tosca.nodes.indigo.Compute\n      capabilities: {host: {properties: "
                       "{num_cpus: 4, mem_size: 8 GB}}}\n"));
    const DeploymentSpec& spec = SpecOf(check);
    const NodeSpec* fe = spec.FindNode("fe");
    CHECK(fe->host_node == "vm");
    CHECK(fe->resources.cpus == 4.0);
    CHECK(fe->resources.mem_mb == 8000u);
    CHECK(spec.WorkloadNodes().size() == 1);  // only the VM is a workload
}

TEST_CASE("Chronos jobs, a parent job and the schedule", "[tosca][spec]") {
    const auto check = Check(
        Template("    first:\n      type: tosca.nodes.indigo.Container.Application.Docker.Chronos\n"
                 "      properties: {command: echo 1, schedule: R0/2015-12-25T17:22:00Z/PT1M}\n"
                 "      artifacts: {image: {file: busybox, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n"
                 "      requirements: [{host: rt}]\n"
                 "    second:\n      type: tosca.nodes.indigo.Container.Application.Docker.Chronos\n"
                 "      properties: {command: echo 2}\n"
                 "      artifacts: {image: {file: busybox, type: tosca.artifacts.Deployment.Image.Container.Docker}}\n"
                 "      requirements: [{host: rt}, {parent_job: first}]\n"
                 "    rt:\n      type: tosca.nodes.indigo.Container.Runtime.Docker\n      capabilities: {host: "
                 "{properties: {num_cpus: 0.5, mem_size: 512 MB}}}\n")
    );
    const DeploymentSpec& spec = SpecOf(check);
    CHECK(spec.kind == DeploymentKind::kChronos);
    CHECK(spec.WorkloadNodes().size() == 2);
    CHECK(spec.FindNode("first")->schedule == "R0/2015-12-25T17:22:00Z/PT1M");
    CHECK(spec.FindNode("second")->depends_on == std::vector<std::string>{"first"});
    CHECK(spec.FindNode("second")->resources.cpus == 0.5);
    CHECK(spec.FindNode("second")->privileged);  // the Chronos type's default
}

TEST_CASE("QCG batch job and Helm chart kinds", "[tosca][spec]") {
    const auto job =
        Check(Template("    job:\n      type: tosca.nodes.indigo.Qcg.Job\n"
                       "      properties: {executable: /usr/bin/train, arguments: [--epochs, '5'], environment: {A: "
                       "b}, total_cores: 16, memory_per_node: 64000, gpus: 4}\n"));
    const DeploymentSpec& spec = SpecOf(job);
    CHECK(spec.kind == DeploymentKind::kSlurm);
    CHECK(OriginalDeploymentTypeName(spec.kind) == "QCG");
    const NodeSpec& node = spec.nodes.front();
    CHECK(node.command == "/usr/bin/train");
    CHECK(node.arguments == std::vector<std::string>{"--epochs", "5"});
    CHECK(node.environment.at("A") == "b");
    CHECK(node.resources.cpus == 16.0);
    CHECK(node.resources.mem_mb == 64000u);
    CHECK(node.resources.gpu.count == 4);
    const auto helm =
        Check(Template("    chart:\n      type: tosca.nodes.indigo.Kubernetes.HelmChart\n      properties: "
                       "{repository: 'https://charts', name: minio, version: 1.0.0}\n"));
    CHECK(SpecOf(helm).kind == DeploymentKind::kKubernetes);
    CHECK(SpecOf(helm).WorkloadNodes().size() == 1);
}

TEST_CASE("the deployment kind follows derivation, unlike the original's exact names", "[tosca][spec]") {
    const std::string text =
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "imports:\n  - indigo: " +
        std::string(test::kIndigoMaster) +
        "\n"
        "node_types:\n  my.TrainingApp:\n    derived_from: tosca.nodes.indigo.Container.Application.Docker.Marathon\n"
        "topology_template:\n  node_templates:\n"
        "    app:\n      type: my.TrainingApp\n      artifacts: {image: {file: x, type: "
        "tosca.artifacts.Deployment.Image.Container.Docker}}\n      requirements: [{host: rt}]\n"
        "    rt: {type: tosca.nodes.indigo.Container.Runtime.Docker}\n";
    const auto check = Check(text);
    const DeploymentSpec& spec = SpecOf(check);
    CHECK(spec.kind == DeploymentKind::kMarathon);
    CHECK(spec.WorkloadNodes().front()->type_chain.front() == "my.TrainingApp");
}

// Issue 25: the Kubernetes types docs/connectors.md documents were classified as virtual
// machines (tosca-check said VIRTUAL_MACHINES, the dry run chose OpenStack and the create failed
// with "the template has no virtual machine"); only the never-merged Docker.Kubernetes type routed.
TEST_CASE("native Kubernetes workload types route to Kubernetes, not to virtual machines", "[tosca][spec]") {
    for (const std::string type :
         {"tosca.nodes.indigo.Kubernetes.Deployment",
          "tosca.nodes.indigo.Kubernetes.Job",
          "tosca.nodes.indigo.Kubernetes.CronJob"}) {
        INFO(type);
        const std::string text =
            "tosca_definitions_version: tosca_simple_yaml_1_0\n"
            "node_types:\n  " +
            type +
            ":\n    derived_from: tosca.nodes.Root\n"
            "    properties: {image: {type: string}}\n"
            "topology_template:\n  node_templates:\n"
            "    app:\n      type: " +
            type + "\n      properties: {image: nginx}\n";
        const auto check = Check(text);
        const DeploymentSpec& spec = SpecOf(check);
        CHECK(DeploymentKindName(spec.kind) == "KUBERNETES");
        CHECK(CheckReport(check)["kind"] == "KUBERNETES");
        REQUIRE(spec.WorkloadNodes().size() == 1);
        CHECK(spec.WorkloadNodes().front()->name == "app");
    }
}

std::string ReadCorpus(const std::string& relative) {
    std::ifstream in(test::CorpusDir() + "/" + relative);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

TEST_CASE("the original's test expectations on corpus templates", "[tosca][spec][corpus]") {
    const std::string dir = "indigo-dc-orchestrator/src/test/resources/tosca/";
    const DeploymentSpec removal = SpecOf(Check(ReadCorpus(dir + "galaxy_tosca_clues_removal_list.yaml")));
    CHECK(
        removal.FindNode("torque_wn")->removal_list == std::vector<std::string>{"to-be-deleted-1", "to-be-deleted-2"}
    );
    const DeploymentSpec defaults =
        SpecOf(Check(ReadCorpus(dir + "inputs/tosca_inputs_default_replaced.yaml"), Json::object()));
    CHECK(defaults.nodes.front().capabilities["host"]["num_cpus"] == 8);
    CHECK(defaults.nodes.front().resources.cpus == 8.0);
    const DeploymentSpec chronos = SpecOf(Check(ReadCorpus(dir + "chronos_2_jobs.yaml")));
    CHECK(chronos.kind == DeploymentKind::kChronos);
    const DeploymentSpec qcg = SpecOf(Check(ReadCorpus(dir + "qcg_jobs.yaml")));
    CHECK(qcg.nodes.front().command == "/usr/bin/date");
    const DeploymentSpec marathon = SpecOf(Check(ReadCorpus(dir + "marathon_app.yaml")));
    CHECK(marathon.FindNode("marathon")->resources.mem_mb == 1000u);
    CHECK(marathon.FindNode("marathon")->image == "hello-world");
    const DeploymentSpec sla = SpecOf(Check(ReadCorpus(dir + "tosca_hybrid_before_update.yaml")));
    REQUIRE(sla.policies.size() == 1);
    CHECK(sla.policies.front().type == "tosca.policies.indigo.SlaPlacement");
    CHECK_FALSE(sla.policies.front().sla_id.empty());
}

TEST_CASE("volume texts", "[tosca][spec]") {
    CHECK(ParseVolume("/data:ro").mode == "RO");
    CHECK(ParseVolume("/host:/data:rw").host_path == "/host");
    CHECK(ParseVolume("/host:/data:rw").container_path == "/data");
    CHECK(ParseVolume("name:/data:rw:rexray:dvdi").container_path == "/data");
    CHECK(ParseVolume("name:/data:rw:rexray:dvdi").raw == "name:/data:rw:rexray:dvdi");
    CHECK(ParseVolume("/just/a/path").container_path == "/just/a/path");
}

}  // namespace
}  // namespace orch::tosca
