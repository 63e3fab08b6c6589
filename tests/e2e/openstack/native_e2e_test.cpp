// Native contextualisation end to end on the real OpenStack rig: the real orchestrator binary
// (contextualisation.enabled) and PostgreSQL, a catalogue whose OpenStack services point at the
// rig's Keystone, and corpus templates of VMs carrying software. Nova creates the servers, the
// rig makes each one a real sshd on a loopback address (scripts/openstack/orch_vm.py), and the
// real ansible-playbook configures them with the small INDIGO-named roles of roles/ and the
// stand-ins of INDIGO's interface playbooks in artifacts/ (read through a tosca.mirrors entry,
// as imports are). Checks what the user sees (status, outputs, statusReason), Nova's own server
// list, and what the roles and playbooks left on each server's "disk".
#include "../../integration/openstack/openstack_rig.hpp"
#include "../sites/site_rig.hpp"
#include "test_support/im_corpus.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace {

using orch::Json;
namespace rig = orch::test::openstack;
namespace fs = std::filesystem;

// Several deployments boot and are configured at once on 2 shared cores.
constexpr auto kTimeout = std::chrono::seconds(300);
const std::set<std::string> kCreateDone = {"CREATE_COMPLETE", "CREATE_FAILED"};
const std::set<std::string> kUpdateDone = {"UPDATE_COMPLETE", "UPDATE_FAILED"};
const std::set<std::string> kDeleteDone = {"DELETE_COMPLETE", "DELETE_FAILED"};

std::string CurrentUser() {
    const passwd* pw = ::getpwuid(::getuid());
    REQUIRE(pw != nullptr);
    return pw->pw_name;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);  // the corpus file changed
    return text.replace(at, from.size(), to);
}

// The catalogue describes the rig's one Glance image as every image the templates name, and its
// flavors as large enough for the corpus's clusters (the fake hypervisor boots nothing).
std::string Catalogue(const std::vector<std::pair<std::string, double>>& sites) {
    const Json& r = rig::Rig();
    const std::string image = r["image"]["id"].get<std::string>();
    std::ostringstream out;
    out << "providers:\n";
    for (const auto& [site, weight] : sites) {
        out << "  - id: " << site << "\n    name: " << site << "\n    services:\n      " << site << "_nova:\n"
            << "        service_type: org.openstack.nova\n        endpoint: " << r["auth_url"].get<std::string>()
            << "\n        type: compute\n        region: " << r["region"].get<std::string>()
            << "\n        iam_enabled: false\n"
            // The rig gives every server its address as a floating IP too (orch_vm.py).
            << "        public_ip_assignable: true\n";
    }
    out << "tenants:\n";
    for (const auto& [site, weight] : sites) {
        out << "  " << site << "-demo:\n    tenant: {tenant_id: " << r["project"]["id"].get<std::string>()
            << ", tenant_name: " << r["project"]["name"].get<std::string>() << ", service: " << site
            << "_nova, iam_organisation: e2e, private_network_name: none}\n    flavors:\n"
            << "      - {flavor_id: " << r["flavors"]["m1.small"]["id"].get<std::string>()
            << ", flavor_name: m1.large, num_vcpus: 4, ram: 8192, disk: 40, num_gpus: 0}\n"
            << "      - {flavor_id: " << r["flavors"]["gpu.v100"]["id"].get<std::string>()
            << ", flavor_name: gpu.large, num_vcpus: 4, ram: 8192, disk: 40, num_gpus: 1, gpu_vendor: nvidia, "
               "gpu_model: \"Tesla V100\"}\n    images:\n";
        for (const char* name : {"linux-ubuntu-16.04-vmi", "ubuntu-16.04"}) {
            out << "      - {image_id: " << image << ", image_name: " << name
                << ", architecture: x86_64, type: linux, distribution: ubuntu, version: \"16.04\"}\n";
        }
    }
    return out.str();
}

std::string Slas(const std::vector<std::pair<std::string, double>>& sites) {
    std::vector<orch::e2e::SlaEntry> slas;
    for (const auto& [site, weight] : sites) {
        slas.push_back({site, site + "_nova", weight});
    }
    return orch::e2e::SlaYaml(slas);
}

// Site credentials, and native contextualisation with the test roles, logging in as the user the
// test runs as (the rig stands in for cloud-init without making accounts) on the rig's SSH port.
std::string TopLevel(const std::vector<std::pair<std::string, double>>& sites, const std::string& work_dir) {
    const Json& r = rig::Rig();
    std::ostringstream out;
    out << "credentials:\n";
    for (const auto& [site, weight] : sites) {
        out << "  " << site << "_nova: {username: " << r["user"]["name"].get<std::string>()
            << ", password: " << Json(r["user"]["password"].get<std::string>()).dump() << "}\n";
    }
    out << "contextualisation:\n  enabled: true\n  work_dir: " << work_dir
        << "\n  role_dir: " << orch::test::SourceDir() << "/tests/e2e/openstack/roles\n  ssh_user: " << CurrentUser()
        << "\n  ssh_port: " << r["ssh_port"].get<int>() << "\n  node_time_limit: 300s\n  connect_timeout: 30s\n";
    return out.str();
}

// INDIGO's types name their interface playbooks under tosca-types/<ref>/artifacts/; the test's
// stand-ins are mapped there (longest prefix wins over the corpus mirror of the type files).
void MirrorArtifacts(const std::string& config_path) {
    std::string text = orch::test::ReadFile(config_path);
    std::string lines;
    for (const char* ref : {"master", "devel"}) {
        lines += std::string("    \"https://raw.githubusercontent.com/indigo-dc/tosca-types/") + ref +
                 "/artifacts/\": " + orch::test::SourceDir() + "/tests/e2e/openstack/artifacts/\n";
    }
    text = Replace(text, "  mirrors:\n", "  mirrors:\n" + lines);
    std::ofstream(config_path) << text;
}

/// Whether Nova still lists a server named for the deployment (no test assertion: used in cleanup).
bool NovaServersLeft(const std::string& deployment_id) {
    const auto [status, body] = rig::AdminNovaGet("/servers/detail?all_tenants=1&name=%5Eorch-" + deployment_id + "-");
    return status != 200 || !body.value("servers", Json::array()).empty();
}

struct NativeOrchestrator {
    explicit NativeOrchestrator(const std::vector<std::pair<std::string, double>>& sites)
        : work_dir(orch::test::BinaryDir() + "/e2e-native-" + std::to_string(::getpid())),
          process(db.dsn(), {}, Config(sites, work_dir)),
          api(process.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(process.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    // A failed check must not leave servers (and the rig's two GPUs) to the tests after this one.
    ~NativeOrchestrator() {
        for (const auto& id : created) {
            if (!NovaServersLeft(id)) {
                continue;
            }
            api.Call("DELETE", "/deployments/" + id);
            api.WaitFor(id, kDeleteDone, kTimeout);
        }
    }
    NativeOrchestrator(const NativeOrchestrator&) = delete;
    NativeOrchestrator& operator=(const NativeOrchestrator&) = delete;

    static std::string Config(const std::vector<std::pair<std::string, double>>& sites, const std::string& work_dir) {
        // A running configuration occupies a worker: enough of them for the deployments at once.
        const std::string path = orch::e2e::WriteOrchestratorFiles(
            Catalogue(sites), Slas(sites), "  workers: 8\n  max_poll: 2s\n", TopLevel(sites, work_dir)
        );
        MirrorArtifacts(path);
        return path;
    }

    std::string Create(const std::string& text, const Json& parameters, int max_providers = 0) {
        Json body = {{"template", text}, {"parameters", parameters}};
        if (max_providers > 0) {
            body["maxProvidersRetry"] = max_providers;
        }
        const auto res = api.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        created.push_back(Json::parse(res.body)["uuid"].get<std::string>());
        return created.back();
    }

    std::string work_dir;
    std::vector<std::string> created;
    orch::test::TestDatabase db;
    orch::test::OrchestratorProcess process;
    orch::e2e::Api api;
};

/// Nova's own list (as the rig's admin) of the servers named for a deployment.
Json NovaServers(const std::string& deployment_id) {
    const auto [status, body] = rig::AdminNovaGet("/servers/detail?all_tenants=1&name=%5Eorch-" + deployment_id + "-");
    REQUIRE(status == 200);
    return body["servers"];
}

/// The deployment's servers by TOSCA node (the connector's server metadata), checked ACTIVE.
std::map<std::string, std::vector<Json>> ServersByNode(const std::string& deployment_id) {
    std::map<std::string, std::vector<Json>> out;
    for (const auto& server : NovaServers(deployment_id)) {
        CHECK(server["status"] == "ACTIVE");
        out[server["metadata"].value("orch_node", "")].push_back(server);
    }
    return out;
}

/// The server's "disk" (orch_vm.py), where the roles and playbooks write.
std::string Disk(const Json& server) {
    return rig::Rig()["instances_path"].get<std::string>() + "/" + server["id"].get<std::string>() + "/root";
}

bool Applied(const Json& server, const std::string& role) {
    return fs::exists(Disk(server) + "/roles/" + role);
}

bool Running(const Json& server, const std::string& service) {
    return fs::exists(Disk(server) + "/run/" + service + ".active");
}

/// What a stand-in playbook recorded of its operation's inputs on the server.
Json Recorded(const Json& server, const std::string& playbook) {
    const std::string path = Disk(server) + "/etc/indigo/" + playbook + ".json";
    INFO(path);
    REQUIRE(fs::exists(path));
    return Json::parse(orch::test::ReadFile(path));
}

/// Every server of the node: the roles applied, the services running.
void CheckConfigured(
    const std::map<std::string, std::vector<Json>>& servers,
    const std::string& node,
    std::size_t count,
    const std::vector<std::string>& roles,
    const std::vector<std::string>& services
) {
    INFO("node " << node);
    const auto it = servers.find(node);
    REQUIRE(it != servers.end());
    CHECK(it->second.size() == count);
    for (const auto& server : it->second) {
        for (const auto& role : roles) {
            CHECK(Applied(server, role));
        }
        for (const auto& service : services) {
            CHECK(Running(server, service));
        }
    }
}

/// CREATE_COMPLETE with every output of the template filled, none an error text.
void CheckComplete(const Json& d, const std::string& text) {
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    const Json outputs = d.value("outputs", Json::object());
    for (const auto& name : orch::test::OutputNames(text)) {
        INFO("output " << name);
        REQUIRE(outputs.contains(name));
        CHECK_FALSE(outputs[name].is_null());
    }
    CHECK_FALSE(orch::test::HasErrorText(outputs));
    CHECK(outputs.dump().find("127.") != std::string::npos);  // the URLs and IPs name a server's address
}

void DeleteAll(NativeOrchestrator& o, const std::vector<std::string>& ids) {
    for (const auto& id : ids) {
        REQUIRE(o.api.Call("DELETE", "/deployments/" + id).status == 204);
    }
    for (const auto& id : ids) {
        const Json deleted = o.api.WaitFor(id, kDeleteDone, kTimeout);
        INFO(deleted.dump(2));
        CHECK(deleted["status"] == "DELETE_COMPLETE");
        CHECK(NovaServers(id).empty());
    }
}

// --- the templates ---------------------------------------------------------------------------

constexpr char kDockerHost[] = "indigo-dc-tosca-templates/deep-oc/vm_docker_deepaas.yml";
constexpr char kJupyterHub[] = "indigo-dc-tosca-types/examples/jupyter_kube_cluster.yaml";
constexpr char kKubernetes[] = "indigo-dc-tosca-types/examples/kubernetes_cluster.yaml";
constexpr char kMesos[] = "indigo-dc-tosca-templates/mesos_cluster.yaml";
constexpr char kElastic[] = "indigo-dc-tosca-types/examples/elastic_cluster.yaml";

/// kubernetes_cluster.yaml whose workers each ask for one NVIDIA GPU.
std::string KubernetesGpu() {
    const std::string gpu = Replace(
        orch::e2e::CorpusTemplate(kKubernetes),
        "            num_cpus: { get_input: wn_cpus }\n",
        "            num_cpus: { get_input: wn_cpus }\n            num_gpus: 1\n            gpu_vendor: NVIDIA\n"
    );
    // The worker is configured once the front end is (as a cluster's workers join their front
    // end), so the two nodes' configurations come in a known order.
    return Replace(gpu, "        - host: lrms_wn\n", "        - host: lrms_wn\n        - dependency: lrms_front_end\n");
}

/// Where the deployment's log says "configuring node `node`" first; npos when it does not.
std::size_t ConfiguringAt(const std::string& log, const std::string& node) {
    return log.find("== configuring node " + node + "\n");
}

Json MesosInputs(int slaves) {
    return {
        {"mesos_password", "mesos-e2e"},
        {"marathon_password", "marathon-e2e"},
        {"chronos_password", "chronos-e2e"},
        {"slave_num", slaves}};
}

/// The Docker host whose docker role is the test's `indigo-dc.flaky` (fails on the first site).
std::string FlakyDockerHost() {
    return Replace(
        orch::e2e::CorpusTemplate(kDockerHost),
        "      type: tosca.nodes.indigo.DEEPaaScont\n",
        "      type: tosca.nodes.indigo.DEEPaaScont\n      artifacts:\n        docker_role:\n"
        "          file: indigo-dc.flaky\n          type: tosca.artifacts.AnsibleGalaxy.role\n"
    );
}

/// The Docker host whose docker role is the test's `indigo-dc.stalling` (runs for 15 minutes).
std::string StallingDockerHost() {
    return Replace(
        orch::e2e::CorpusTemplate(kDockerHost),
        "      type: tosca.nodes.indigo.DEEPaaScont\n",
        "      type: tosca.nodes.indigo.DEEPaaScont\n      artifacts:\n        docker_role:\n"
        "          file: indigo-dc.stalling\n          type: tosca.artifacts.AnsibleGalaxy.role\n"
    );
}

/// Processes of this machine whose command line names `text` (an ansible-playbook of a
/// deployment names the deployment's contextualisation directory).
std::vector<std::string> ProcessesNaming(const std::string& text) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        if (cmdline.find(text) != std::string::npos && cmdline.find("ansible") != std::string::npos) {
            out.push_back(entry.path().filename().string() + ": " + cmdline);
        }
    }
    return out;
}

}  // namespace

TEST_CASE(
    "native Ansible: five corpus VM templates are configured on Nova's servers, a cluster scales out and "
    "back, and DELETE empties Nova",
    "[e2e][openstack][ansible]"
) {
    NativeOrchestrator o({{"CLOUD-A", 1.0}});
    const std::string kube_text = KubernetesGpu();
    // The five are created and configured at the same time, then waited for in turn. A create
    // Nova answers late on the busy machine is adopted by name, never made twice: each node's
    // server count is checked below.
    const std::string docker = o.Create(orch::e2e::CorpusTemplate(kDockerHost), {{"dockerhub_img", "deephdc/e2e"}});
    const std::string jupyter = o.Create(orch::e2e::CorpusTemplate(kJupyterHub), Json::object());
    const std::string kube = o.Create(kube_text, Json::object());
    const std::string mesos = o.Create(orch::e2e::CorpusTemplate(kMesos), MesosInputs(1));
    const std::string elastic = o.Create(orch::e2e::CorpusTemplate(kElastic), Json::object());

    {
        CheckComplete(o.api.WaitFor(docker, kCreateDone, kTimeout), orch::e2e::CorpusTemplate(kDockerHost));
        const auto servers = ServersByNode(docker);
        CheckConfigured(servers, "simple_node", 1, {"grycap.docker"}, {"deepaas"});
        CHECK(Recorded(servers.at("simple_node")[0], "deepaas_cont")["deepaas_dockerhub_img"] == "deephdc/e2e");
    }
    {
        CheckComplete(o.api.WaitFor(jupyter, kCreateDone, kTimeout), orch::e2e::CorpusTemplate(kJupyterHub));
        const auto servers = ServersByNode(jupyter);
        CheckConfigured(
            servers,
            "lrms_server",
            1,
            {"indigo-dc.os_users", "indigo-dc.kubernetes", "indigo-dc.nfs", "indigo-dc.jupyterhub"},
            {"kube-apiserver", "jupyterhub"}
        );
        CheckConfigured(servers, "lrms_wn", 1, {"indigo-dc.os_users", "indigo-dc.kubernetes"}, {"kubelet"});
        const Json hub = Recorded(servers.at("lrms_server")[0], "jupyterhub_install");
        CHECK(hub["jupyterhub_spawner"] == "kubernetes");
        CHECK(Recorded(servers.at("lrms_server")[0], "kube_fe_install")["kube_admin_username"] == "kubeuser");
    }
    {
        CheckComplete(o.api.WaitFor(kube, kCreateDone, kTimeout), kube_text);
        // Each node's configuration said when it started, in order (before: the log had Ansible's
        // output only once every node was configured, and nothing while they were).
        const auto log = o.api.Call("GET", "/deployments/" + kube + "/log");
        REQUIRE(log.status == 200);
        INFO(log.body);
        const std::size_t front = ConfiguringAt(log.body, "lrms_front_end");
        const std::size_t worker = ConfiguringAt(log.body, "wn_node");
        CHECK(front != std::string::npos);
        CHECK(worker != std::string::npos);
        CHECK(front < worker);
        CHECK(log.body.find("== node wn_node: configured") > worker);
        const auto servers = ServersByNode(kube);
        CheckConfigured(
            servers,
            "lrms_server",
            1,
            {"indigo-dc.os_users", "indigo-dc.kubernetes"},
            {"kube-apiserver", "helm-release"}
        );
        CheckConfigured(servers, "lrms_wn", 1, {"indigo-dc.os_users", "indigo-dc.kubernetes"}, {"kubelet"});
        CHECK(servers.at("lrms_wn")[0]["flavor"]["original_name"] == "gpu.v100");  // the GPU worker
        CHECK(servers.at("lrms_server")[0]["flavor"]["original_name"] == "m1.small");
        CHECK(Recorded(servers.at("lrms_server")[0], "helm_chart")["helm_app_name"] == "IM");
    }
    {
        CheckComplete(o.api.WaitFor(elastic, kCreateDone, kTimeout), orch::e2e::CorpusTemplate(kElastic));
        const auto servers = ServersByNode(elastic);
        CheckConfigured(
            servers,
            "lrms_server",
            1,
            {"indigo-dc.os_users", "indigo-dc.slurm", "indigo-dc.clues", "grycap.im"},
            {"slurmctld", "clues"}
        );
        CHECK(servers.count("lrms_wn") == 0);  // an elastic cluster starts with no worker
        // The front end's SSH access, as IM publishes it on the endpoint capability.
        const Json creds = o.api.WaitFor(elastic, kCreateDone, kTimeout)["outputs"]["cluster_creds"];
        CHECK(creds["user"] == CurrentUser());
        CHECK_THAT(creds.value("token", ""), Catch::StartsWith("ssh-ed25519 "));
    }
    {
        const std::string text = orch::e2e::CorpusTemplate(kMesos);
        CheckComplete(o.api.WaitFor(mesos, kCreateDone, kTimeout), text);
        auto servers = ServersByNode(mesos);
        const std::vector<std::string> agent_roles = {
            "indigo-dc.os_users", "indigo-dc.docker", "indigo-dc.consul", "indigo-dc.mesos"};
        CheckConfigured(
            servers,
            "mesos_master_server",
            1,
            {"indigo-dc.zookeeper", "indigo-dc.mesos", "indigo-dc.marathon", "indigo-dc.chronos"},
            {"mesos-master"}
        );
        CheckConfigured(servers, "mesos_lb_server", 1, {"indigo-dc.marathon-lb"}, {"marathon-lb"});
        CheckConfigured(servers, "mesos_slave_server", 1, agent_roles, {"mesos-agent"});
        const std::string first_agent = servers.at("mesos_slave_server")[0]["id"].get<std::string>();

        // One more agent: Nova creates it and Ansible configures it like the first.
        auto res =
            o.api.Call("PUT", "/deployments/" + mesos, Json{{"template", text}, {"parameters", MesosInputs(2)}}.dump());
        INFO(res.body);
        REQUIRE(res.status == 202);
        Json up = o.api.WaitFor(mesos, kUpdateDone, kTimeout);
        INFO(up.dump(2));
        REQUIRE(up["status"] == "UPDATE_COMPLETE");
        servers = ServersByNode(mesos);
        CheckConfigured(servers, "mesos_slave_server", 2, agent_roles, {"mesos-agent"});
        std::string added;
        for (const auto& server : servers.at("mesos_slave_server")) {
            added = server["id"] != first_agent ? server["id"].get<std::string>() : added;
        }
        REQUIRE_FALSE(added.empty());

        // And back: the newest agent goes from Nova's list, the first stays configured.
        res =
            o.api.Call("PUT", "/deployments/" + mesos, Json{{"template", text}, {"parameters", MesosInputs(1)}}.dump());
        REQUIRE(res.status == 202);
        const Json down = o.api.WaitFor(mesos, kUpdateDone, kTimeout);
        INFO(down.dump(2));
        REQUIRE(down["status"] == "UPDATE_COMPLETE");
        servers = ServersByNode(mesos);
        CheckConfigured(servers, "mesos_slave_server", 1, agent_roles, {"mesos-agent"});
        CHECK(servers.at("mesos_slave_server")[0]["id"] == first_agent);
        CHECK(rig::AdminNovaGet("/servers/" + added).first == 404);
    }
    DeleteAll(o, {docker, jupyter, kube, mesos, elastic});
}

TEST_CASE(
    "native Ansible: a role failing on the first site moves the deployment to the next one, with the task's "
    "error kept",
    "[e2e][openstack][ansible]"
) {
    NativeOrchestrator o({{"CLOUD-A", 1.0}, {"CLOUD-B", 0.5}});
    const std::string text = FlakyDockerHost();
    const std::string moved = o.Create(text, {{"dockerhub_img", "deephdc/moved-" + o.work_dir}});
    // Only the first site allowed: the task's error is what the user reads.
    const std::string failed = o.Create(text, {{"dockerhub_img", "deephdc/failed-" + o.work_dir}}, 1);

    const Json d = o.api.WaitFor(moved, kCreateDone, kTimeout);
    CheckComplete(d, text);
    CHECK(d["cloudProviderName"] == "CLOUD-B");
    const Json attempts = orch::e2e::AttemptsOf(o.db.dsn(), moved);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["provider_id"] == "CLOUD-A");
    CHECK_THAT(
        attempts[0]["reason"].get<std::string>(),
        Catch::Contains("contextualisation failed") && Catch::Contains("docker daemon refused to start on this site")
    );
    CHECK(attempts[1]["outcome"] == "SUCCEEDED");
    const auto servers = ServersByNode(moved);  // CLOUD-A's server was deleted
    CheckConfigured(servers, "simple_node", 1, {"indigo-dc.flaky"}, {"deepaas"});

    const Json f = o.api.WaitFor(failed, kCreateDone, kTimeout);
    INFO(f.dump(2));
    REQUIRE(f["status"] == "CREATE_FAILED");
    CHECK_THAT(
        f["statusReason"].get<std::string>(),
        Catch::Contains("Cloud Provider CLOUD-A\n") && Catch::Contains("docker daemon refused to start on this site")
    );
    CHECK(NovaServers(failed).empty());
    DeleteAll(o, {moved, failed});
}

TEST_CASE(
    "native Ansible: DELETE during the configuration stops Ansible, deletes the servers and leaves Nova's list "
    "empty",
    "[e2e][openstack][ansible]"
) {
    NativeOrchestrator o({{"CLOUD-A", 1.0}});
    const std::string id = o.Create(StallingDockerHost(), {{"dockerhub_img", "deephdc/stalling"}});
    // Until the role runs on the server: the deployment is then being configured.
    std::string disk;
    for (const auto until = std::chrono::steady_clock::now() + kTimeout;
         disk.empty() && std::chrono::steady_clock::now() < until;
         std::this_thread::sleep_for(std::chrono::milliseconds(500))) {
        for (const auto& server : NovaServers(id)) {
            if (fs::exists(Disk(server) + "/run/stalling.active")) {
                disk = Disk(server);
            }
        }
    }
    REQUIRE_FALSE(disk.empty());
    const std::string context_dir = o.work_dir + "/" + id;
    CHECK_FALSE(ProcessesNaming(context_dir).empty());  // ansible-playbook is running
    CHECK(Json::parse(o.api.Call("GET", "/deployments/" + id).body)["status"] == "CREATE_IN_PROGRESS");
    // What the configuration does now is what the user reads (before: "Polling CLOUD-A ...").
    const std::string doing =
        "CLOUD-A: configuring node deepaas_app (role indigo-dc.stalling, task 'configure for a long time')";
    std::string reason;
    for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
         reason != doing && std::chrono::steady_clock::now() < until;
         std::this_thread::sleep_for(std::chrono::milliseconds(500))) {
        const Json now = Json::parse(o.api.Call("GET", "/deployments/" + id).body);
        reason = now["statusReason"].is_string() ? now["statusReason"].get<std::string>() : "";
    }
    CHECK(reason == doing);
    const auto log = o.api.Call("GET", "/deployments/" + id + "/log");
    CHECK_THAT(log.body, Catch::Contains("== configuring node deepaas_app\n") && Catch::Contains(doing));

    REQUIRE(o.api.Call("DELETE", "/deployments/" + id).status == 204);
    // The role would run 15 minutes; the delete completes within the wait only if it was stopped.
    const Json deleted = o.api.WaitFor(id, kDeleteDone, kTimeout);
    INFO(deleted.dump(2));
    CHECK(deleted["status"] == "DELETE_COMPLETE");
    CHECK(NovaServers(id).empty());
    CHECK_FALSE(fs::exists(disk));  // the server's disk (and sshd) went with it
    const auto left = ProcessesNaming(context_dir);
    INFO(Json(left).dump(2));
    CHECK(left.empty());
}
