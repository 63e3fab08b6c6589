// End to end through IM: the real orchestrator binary and PostgreSQL, one site-sim whose IM
// simulator (it checks every request against IM's OpenAPI document and parses the TOSCA with
// our engine) serves the two OpenStack sites of a catalogue written here (catalogue property
// `im_endpoint`), and the corpus templates the MANIFEST sends to IM. Time in the simulator
// runs 20x, so VMs boot and are configured within a poll or two.
#include "../sites/site_rig.hpp"
#include "test_support/im_corpus.hpp"
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <map>
#include <thread>

namespace {

using orch::Json;

constexpr auto kTimeout = std::chrono::seconds(30);
const std::set<std::string> kCreateDone = {"CREATE_COMPLETE", "CREATE_FAILED"};
const std::set<std::string> kUpdateDone = {"UPDATE_COMPLETE", "UPDATE_FAILED"};
const std::set<std::string> kDeleteDone = {"DELETE_COMPLETE", "DELETE_FAILED"};

// Flavors large enough for the corpus's clusters (up to 16 CPUs, 34 GiB), and the images the
// corpus names by name or by os type/distribution/version.
constexpr char kOffers[] = R"(    flavors:
      - {flavor_id: "1", flavor_name: m1.small, num_vcpus: 1, ram: 2048, disk: 20, num_gpus: 0}
      - {flavor_id: "2", flavor_name: m1.large, num_vcpus: 4, ram: 8192, disk: 80, num_gpus: 0}
      - {flavor_id: "3", flavor_name: m1.xxlarge, num_vcpus: 32, ram: 131072, disk: 1000, num_gpus: 0}
      - {flavor_id: "10", flavor_name: g1.t4x2, num_vcpus: 16, ram: 65536, disk: 200, num_gpus: 2, gpu_vendor: nvidia, gpu_model: "Tesla T4"}
    images:
      - {image_id: ubuntu-16.04, image_name: linux-ubuntu-16.04-vmi, architecture: x86_64, type: linux, distribution: ubuntu, version: "16.04"}
      - {image_id: ubuntu-14.04, image_name: linux-ubuntu-14.04-vmi, architecture: x86_64, type: linux, distribution: ubuntu, version: "14.04"}
      - {image_id: ubuntu-20.04, image_name: ubuntu-20.04, architecture: x86_64, type: linux, distribution: ubuntu, version: "20.04"}
      - {image_id: centos-7, image_name: centos-7-galaxy-base, architecture: x86_64, type: linux, distribution: centos, version: "7"}
      - {image_id: sl-6, image_name: scientific-6.6, architecture: x86_64, type: linux, distribution: scientific, version: "6.6"}
      - {image_id: ubuntu-14.04-mesos, image_name: linux-ubuntu-14.04-mesos-vmi, architecture: x86_64, type: linux, distribution: ubuntu, version: "14.04"}
      - {image_id: ubuntu-16.04-b, image_name: ubuntu-16.04-vmi, architecture: x86_64, type: linux, distribution: ubuntu, version: "16.04"}
      - {image_id: ubuntu-16.04-c, image_name: ubuntu-16.04, architecture: x86_64, type: linux, distribution: ubuntu, version: "16.04"}
      - {image_id: ubuntu-14.04-one, image_name: onecloud-linux-ubuntu-14.04-vmi, architecture: x86_64, type: linux, distribution: ubuntu, version: "14.04"}
      - {image_id: centos-7-2nic, image_name: centos-7_2nic, architecture: x86_64, type: linux, distribution: centos, version: "7"}
)";

std::string Catalogue(const std::string& im_url) {
    std::string out = "providers:\n";
    for (const std::string site : {"IM-A", "IM-B"}) {
        out += "  - id: " + site + "\n    name: " + site + "\n    services:\n      " + site +
               "_nova:\n        service_type: org.openstack.nova\n        endpoint: https://keystone." + site +
               ".example:5000/v3\n        type: compute\n        region: RegionOne\n        iam_enabled: false\n"
               "        public_ip_assignable: true\n"
               "        properties: {im_endpoint: \"" +
               im_url + "\"}\n";
    }
    out += "tenants:\n";
    for (const std::string site : {"IM-A", "IM-B"}) {
        out += "  " + site + "-e2e:\n    tenant: {tenant_id: e2e-project, tenant_name: e2e, service: " + site +
               "_nova, iam_organisation: e2e, private_network_name: private, public_network_name: public}\n" + kOffers;
    }
    return out;
}

std::string SimConfig() {
    return "speed: 20\nim:\n  tosca_mirrors: \"https://raw.githubusercontent.com/indigo-dc/tosca-types/=" +
           orch::test::SharedDir() + "/tosca-corpus/indigo-dc-tosca-types/refs/\"\n";
}

// The group's SLAs: one per site (IM-A weighs more), plus the SLAs the corpus's placement
// policies name (`sla_id`), granted on IM-A as a real SLAM grants them to the user's group.
std::string Slas() {
    std::string prefs;
    std::string slas;
    const std::vector<std::pair<std::string, std::string>> grants = {
        {"sla-IM-A", "IM-A"},
        {"sla-IM-B", "IM-B"},
        {"5dc42be3e1ac200a237b0aa4", "IM-A"},
        {"5cf12da6cb0e8f527dfb3c97", "IM-A"},
        {"SLA_provider-AWS-us-east-1_indigo-dc", "IM-A"},
        {"4401ac5dc8cfbbb737b0a02575ee53f6", "IM-A"},
        {"7efc59c5db69ea67c5100de0f752b3de", "IM-A"}};
    for (const auto& [sla, site] : grants) {
        prefs += "            - {sla_id: " + sla + ", service_id: " + site +
                 "_nova, weight: " + (site == "IM-A" ? "1.0" : "0.5") + "}\n";
        slas += "    - {id: " + sla + ", customer: e2e, provider: " + site +
                ", services: [{type: computing, service_id: " + site + "_nova, targets: []}]}\n";
    }
    return "e2e:\n  preferences:\n    - customer: e2e\n      preferences:\n        - service_type: compute\n"
           "          priority:\n" +
           prefs + "  sla:\n" + slas;
}

// No user token (auth disabled): IM's record carries im.username/password, the cloud record the
// site's password from `credentials`, as a password site does in the original.
constexpr char kTopLevel[] = R"(im:
  username: e2e-im
  password: e2e-im-secret
credentials:
  IM-A_nova: {username: e2e, password: e2e-os-secret}
  IM-B_nova: {username: e2e, password: e2e-os-secret}
)";

// IM-A ranks first (SLA weight), IM-B second; both sites' VMs go through the one simulated IM.
struct ImRig {
    using CatalogueOf = std::string (*)(const std::string& im_url);
    explicit ImRig(CatalogueOf catalogue = Catalogue, const std::string& slas = Slas(), const char* top = kTopLevel)
        : sim(SimConfig()),
          orchestrator(db.dsn(), {}, orch::e2e::WriteOrchestratorFiles(catalogue(sim.Url("im")), slas, "", top)),
          api(orchestrator.BaseUrl()) {
        REQUIRE(orch::test::WaitForStatus(orchestrator.BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    }

    orch::http::ClientResponse Post(const std::string& text, const Json& parameters) {
        return api.Call("POST", "/deployments", Json{{"template", text}, {"parameters", parameters}}.dump());
    }

    std::string Create(const std::string& text, const Json& parameters) {
        const auto res = Post(text, parameters);
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"].get<std::string>();
    }

    Json Resources(const std::string& id) {
        const auto res = api.Call("GET", "/deployments/" + id + "/resources?size=100");
        REQUIRE(res.status == 200);
        return Json::parse(res.body).value("content", Json::array());
    }

    // The infrastructures IM holds (the simulator's own listing).
    Json Infrastructures() { return sim.Objects()["im"]; }

    orch::test::TestDatabase db;
    orch::e2e::SimProcess sim;
    orch::test::OrchestratorProcess orchestrator;
    orch::e2e::Api api;
};

// Why an outcome is not a success, or "" when the deployment is complete with every output.
std::string Shortfall(const Json& d, const std::vector<std::string>& outputs) {
    if (d.value("status", "") != "CREATE_COMPLETE") {
        return d.value("status", "(no status)") + ": " + d.value("statusReason", "").substr(0, 300);
    }
    const Json values = d.value("outputs", Json::object());
    for (const auto& name : outputs) {
        if (!values.contains(name) || values[name].is_null()) {
            return "output " + name + " missing";
        }
    }
    return orch::test::HasErrorText(values) ? "an output is an error text: " + values.dump().substr(0, 300) : "";
}

}  // namespace

TEST_CASE(
    "IM e2e: the corpus target=IM templates the engine accepts reach CREATE_COMPLETE with their outputs",
    "[e2e][im][corpus]"
) {
    ImRig rig;
    const auto templates = orch::test::ImCorpusTemplates(orch::test::SharedDir() + "/tosca-corpus/MANIFEST.md");
    REQUIRE(templates.size() >= 50);
    struct Submitted {
        std::string path, id, given;
        std::vector<std::string> outputs;
    };
    std::vector<Submitted> submitted;
    std::string table;
    for (const auto& path : templates) {
        const std::string text = orch::e2e::CorpusTemplate(path);
        auto res = rig.Post(text, Json::object());
        std::string given;
        if (res.status == 400) {  // required inputs without defaults: fill them as a user would
            const Json inputs = orch::test::SynthesizedInputs(text);
            given = " [inputs " + inputs.dump() + "]";
            res = rig.Post(text, inputs);
        }
        if (res.status != 201) {
            table += "  refused (" + std::to_string(res.status) + "): " + path + ": " + res.body.substr(0, 200) + "\n";
            continue;
        }
        submitted.push_back(
            {path, Json::parse(res.body)["uuid"].get<std::string>(), given, orch::test::OutputNames(text)}
        );
    }
    // All of them deploy at once; each is waited for in turn.
    std::size_t complete = 0;
    for (const auto& s : submitted) {
        const Json d = rig.api.WaitFor(s.id, kCreateDone, kTimeout);
        const std::string shortfall = Shortfall(d, s.outputs);
        if (shortfall.empty()) {
            ++complete;
            table += "  ok: " + s.path + " (" + std::to_string(s.outputs.size()) + " outputs)" + s.given + "\n";
        } else {
            table += "  FAILED: " + s.path + ": " + shortfall + "\n";
        }
    }
    WARN(
        "IM e2e corpus: " << templates.size() << " target=IM templates, " << submitted.size() << " accepted, "
                          << complete << " CREATE_COMPLETE with every output\n"
                          << table
    );
    CHECK(submitted.size() >= 40);
    CHECK(complete * 100 >= submitted.size() * 95);
    const Json rejected = rig.sim.Rejections();
    INFO(rejected.dump(2));
    CHECK(rejected.empty());
}

namespace {

// Two worker VMs beside a front end; the output lists the workers' addresses.
std::string ClusterTemplate(const std::string& removal_list) {
    return R"(tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  inputs:
    workers:
      type: integer
      default: 2
  node_templates:
    front:
      type: tosca.nodes.indigo.Compute
      capabilities:
        endpoint:
          properties:
            network_name: PUBLIC
        host:
          properties:
            num_cpus: 1
            mem_size: 1 GB
        os:
          properties:
            distribution: ubuntu
            version: 16.04
    worker:
      type: tosca.nodes.indigo.Compute
      capabilities:
        scalable:
          properties:
            count: { get_input: workers }
)" + removal_list +
           R"(        host:
          properties:
            num_cpus: 1
            mem_size: 1 GB
        os:
          properties:
            distribution: ubuntu
            version: 16.04
  outputs:
    front_ip:
      value: { get_attribute: [ front, public_address, 0 ] }
    worker_ips:
      value: { get_attribute: [ worker, private_address ] }
)";
}

// Worker resource uuid → physical id (the IM VM id).
std::map<std::string, std::string> Workers(const Json& resources) {
    std::map<std::string, std::string> out;
    for (const auto& r : resources) {
        if (r.value("toscaNodeName", "") == "worker") {
            out[r.value("uuid", "")] = r.value("physicalId", "");
        }
    }
    return out;
}

std::set<std::string> VmIdsOnSite(const Json& infrastructures) {
    std::set<std::string> out;
    for (const auto& inf : infrastructures) {
        for (const auto& vm : inf["vms"]) {
            out.insert(vm.value("id", ""));
        }
    }
    return out;
}

}  // namespace

TEST_CASE("IM e2e: a cluster scales out and back in by removal_list through IM, then DELETE removes it", "[e2e][im]") {
    ImRig rig;
    const std::string id = rig.Create(ClusterTemplate(""), Json{{"workers", 2}});
    const Json created = rig.api.WaitFor(id, kCreateDone, kTimeout);
    INFO(created.dump(2));
    REQUIRE(created["status"] == "CREATE_COMPLETE");
    CHECK(created["outputs"]["worker_ips"].size() == 2);
    const auto two = Workers(rig.Resources(id));
    REQUIRE(two.size() == 2);

    // Scale out by one worker: PUT with the new count; IM adds one VM, bound to a new resource.
    auto res = rig.api.Call(
        "PUT", "/deployments/" + id, Json{{"template", ClusterTemplate("")}, {"parameters", {{"workers", 3}}}}.dump()
    );
    INFO(res.body);
    REQUIRE(res.status == 202);
    const Json up = rig.api.WaitFor(id, kUpdateDone, kTimeout);
    INFO(up.dump(2));
    REQUIRE(up["status"] == "UPDATE_COMPLETE");
    CHECK(up["outputs"]["worker_ips"].size() == 3);
    const auto three = Workers(rig.Resources(id));
    REQUIRE(three.size() == 3);
    for (const auto& [uuid, vm] : two) {
        CHECK(three.at(uuid) == vm);  // the workers that were there keep their VMs
    }
    CHECK(VmIdsOnSite(rig.Infrastructures()).size() == 4);

    // Scale in by naming one worker resource in the removal_list: its VM goes, the others stay.
    const auto gone = three.begin();
    res = rig.api.Call(
        "PUT",
        "/deployments/" + id,
        Json{
            {"template", ClusterTemplate("            removal_list: ['" + gone->first + "']\n")},
            {"parameters", {{"workers", 2}}}}
            .dump()
    );
    INFO(res.body);
    REQUIRE(res.status == 202);
    const Json down = rig.api.WaitFor(id, kUpdateDone, kTimeout);
    INFO(down.dump(2));
    REQUIRE(down["status"] == "UPDATE_COMPLETE");
    CHECK(down["outputs"]["worker_ips"].size() == 2);
    const auto left = Workers(rig.Resources(id));
    CHECK(left.size() == 2);
    CHECK(left.count(gone->first) == 0);
    const auto vms = VmIdsOnSite(rig.Infrastructures());
    CHECK(vms.count(gone->second) == 0);  // the VM of the named resource, not another one
    for (const auto& [uuid, vm] : left) {
        CHECK(three.at(uuid) == vm);
        CHECK(vms.count(vm) == 1);
    }

    res = rig.api.Call("DELETE", "/deployments/" + id);
    REQUIRE(res.status == 204);
    CHECK(rig.api.WaitFor(id, kDeleteDone, kTimeout)["status"] == "DELETE_COMPLETE");
    CHECK(rig.Infrastructures().empty());
    const Json rejected = rig.sim.Rejections();
    INFO(rejected.dump(2));
    CHECK(rejected.empty());
}

TEST_CASE(
    "IM e2e: a contextualisation failure moves the deployment to the next site with IM's reason", "[e2e][im][faults]"
) {
    ImRig rig;
    // The first create IM receives (IM-A's) ends `unconfigured` with an Ansible failure.
    rig.sim.AddFault(Json{{"api", "im"}, {"method", "POST"}, {"path", "/infrastructures"}, {"kind", "unconfigured"}});
    const std::string id = rig.Create(ClusterTemplate(""), Json{{"workers", 1}});
    const Json d = rig.api.WaitFor(id, kCreateDone, kTimeout);
    INFO(d.dump(2));
    REQUIRE(d["status"] == "CREATE_COMPLETE");
    CHECK(d["cloudProviderName"] == "IM-B");
    const Json attempts = orch::e2e::AttemptsOf(rig.db.dsn(), id);
    INFO(attempts.dump(2));
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0]["provider_id"] == "IM-A");
    const std::string reason = attempts[0]["reason"].get<std::string>();
    CHECK(reason.find("is unconfigured") != std::string::npos);
    CHECK(reason.find("simulated Ansible failure") != std::string::npos);
    // IM-A's failed infrastructure was cleaned up: only IM-B's is left.
    CHECK(rig.Infrastructures().size() == 1);

    // Both sites failing: CREATE_FAILED, IM's reason for each in statusReason.
    rig.sim.AddFault(Json{
        {"api", "im"}, {"method", "POST"}, {"path", "/infrastructures"}, {"kind", "unconfigured"}, {"times", 2}});
    const std::string failing = rig.Create(ClusterTemplate(""), Json{{"workers", 1}});
    const Json failed = rig.api.WaitFor(failing, kCreateDone, kTimeout);
    INFO(failed.dump(2));
    REQUIRE(failed["status"] == "CREATE_FAILED");
    const std::string status_reason = failed.value("statusReason", "");
    CHECK(status_reason.find("IM-A") != std::string::npos);
    CHECK(status_reason.find("IM-B") != std::string::npos);
    CHECK(status_reason.find("simulated Ansible failure") != std::string::npos);
}

namespace {

// IaaS types no direct connector speaks, each with the IM endpoint in the catalogue: an
// OpenNebula site (IM record host + user/password), an EGI FedCloud site (IM record: the GOCDB
// site name, the VO, the user's token) and an EC2 site (IM record: the access key pair), named in
// the catalogue as the CMDB names them.
std::string IaasCatalogue(const std::string& im_url) {
    const std::string im = "        properties: {im_endpoint: \"" + im_url + "\"";
    std::string out = "providers:\n";
    out +=
        "  - id: ONE\n    name: ONE\n    services:\n      ONE_one:\n"
        "        service_type: eu.egi.cloud.vm-management.opennebula\n"
        "        endpoint: https://one.example:2633/RPC2\n        type: compute\n        iam_enabled: false\n"
        "        public_ip_assignable: true\n" +
        im + "}\n";
    out +=
        "  - id: EGI\n    name: EGI\n    services:\n      EGI_fedcloud:\n"
        "        service_type: eu.egi.cloud.vm-management.openstack\n"
        "        endpoint: https://keystone.egi.example:5000/v3\n        type: compute\n        iam_enabled: false\n"
        "        public_ip_assignable: true\n" +
        im + ", im_cloud_type: EGI, sitename: CESGA}\n";
    out +=
        "  - id: AWS\n    name: AWS\n    services:\n      AWS_ec2:\n"
        "        service_type: com.amazonaws.ec2\n"
        "        endpoint: https://ec2.us-east-1.amazonaws.com\n        type: compute\n        iam_enabled: false\n"
        "        public_ip_assignable: true\n" +
        im + "}\n";
    out += "tenants:\n";
    for (const std::string service : {"ONE_one", "EGI_fedcloud", "AWS_ec2"}) {
        out += "  " + service +
               "-e2e:\n    tenant: {tenant_id: e2e-project, tenant_name: vo.e2e.eu, service: " + service +
               ", iam_organisation: e2e, private_network_name: private, public_network_name: public}\n" + kOffers;
    }
    return out;
}

// One SLA per site; which one ranks first is chosen per case by the weights (the EC2 site is
// offered only to a template whose placement policy names its SLA).
std::string IaasSlas(const std::string& first) {
    const std::map<std::string, std::string> services = {
        {"ONE", "ONE_one"}, {"EGI", "EGI_fedcloud"}, {"AWS", "AWS_ec2"}};
    std::string prefs;
    std::string slas;
    for (const auto& [site, service] : services) {
        prefs += "            - {sla_id: sla-" + site + ", service_id: " + service +
                 ", weight: " + (site == first ? "1.0" : "0.5") + "}\n";
        slas += "    - {id: sla-" + site + ", customer: e2e, provider: " + site + ", services: [{type: computing, " +
                "service_id: " + service + ", targets: []}]}\n";
    }
    return "e2e:\n  preferences:\n    - customer: e2e\n      preferences:\n        - service_type: compute\n"
           "          priority:\n" +
           prefs + "  sla:\n" + slas;
}

constexpr char kIaasTopLevel[] = R"(im:
  username: e2e-im
  password: e2e-im-secret
credentials:
  ONE_one: {username: e2e-one, password: e2e-one-secret}
  EGI_fedcloud: {token: e2e-egi-token}
  AWS_ec2: {username: AKIAE2EACCESSKEY, password: e2e-aws-secret}
)";

// The template with a placement policy naming `sla_id` (tosca.policies.indigo.SlaPlacement), as
// a user whose SLA grants an EC2 site writes it: the only way such a site is offered.
std::string WithSlaPolicy(const std::string& text, const std::string& sla_id) {
    YAML::Node root = YAML::Load(text);
    YAML::Node policy;
    policy["type"] = "tosca.policies.indigo.SlaPlacement";
    policy["properties"]["sla_id"] = sla_id;
    YAML::Node entry;
    entry["deploy_on_sla"] = policy;
    root["topology_template"]["policies"].push_back(entry);
    YAML::Emitter out;
    out << root;
    return out.c_str();
}

// The original's IaaSType for each site's cloud (api-contract.md), and the IM cloud record type.
std::string DeploymentTypeOf(const std::string& site) {
    return site == "ONE" ? "OPENNEBULA" : site == "AWS" ? "AWS" : "OPENSTACK";
}
std::string ImCloudTypeOf(const std::string& site) {
    return site == "ONE" ? "OpenNebula" : site == "AWS" ? "EC2" : "EGI";
}
std::string ImImagePrefixOf(const std::string& site) {
    return site == "ONE" ? "one://one.example/" : site == "AWS" ? "aws://ec2.us-east-1.amazonaws.com/" : "ost://";
}

std::string CorpusPath(const std::string& suffix) {
    for (const auto& path : orch::test::ImCorpusTemplates(orch::test::SharedDir() + "/tosca-corpus/MANIFEST.md")) {
        if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
            return path;
        }
    }
    FAIL("no MANIFEST target=IM template ends with " << suffix);
    return {};
}

}  // namespace

TEST_CASE(
    "IM e2e: a corpus Kubernetes cluster deploys on an OpenNebula, an EGI FedCloud and an EC2 site through IM",
    "[e2e][im][iaas]"
) {
    const std::string corpus = orch::e2e::CorpusTemplate(CorpusPath("examples/kubernetes_cluster.yaml"));
    for (const std::string site : {"ONE", "EGI", "AWS"}) {
        DYNAMIC_SECTION("site " << site) {
            // EC2 needs the user's own credentials: offered only through an SLA policy naming it.
            const std::string text = site == "AWS" ? WithSlaPolicy(corpus, "sla-AWS") : corpus;
            ImRig rig(IaasCatalogue, IaasSlas(site), kIaasTopLevel);
            auto res = rig.Post(text, Json::object());
            if (res.status == 400) {
                res = rig.Post(text, orch::test::SynthesizedInputs(text));
            }
            INFO(res.body);
            REQUIRE(res.status == 201);
            const std::string id = Json::parse(res.body)["uuid"].get<std::string>();
            const Json d = rig.api.WaitFor(id, kCreateDone, kTimeout);
            INFO(d.dump(2));
            REQUIRE(d["status"] == "CREATE_COMPLETE");
            CHECK(d["cloudProviderName"] == site);
            // The original's IaaSType of the cloud IM reached (api-contract.md).
            CHECK(d["cloudProviderEndpoint"]["deploymentType"] == DeploymentTypeOf(site));
            CHECK(Shortfall(d, orch::test::OutputNames(text)).empty());
            // IM received the cloud record of that site's type (the simulator checks each
            // type's entries and refuses an incomplete record with 401).
            const Json infrastructures = rig.Infrastructures();
            REQUIRE(infrastructures.size() == 1);
            CHECK(infrastructures[0]["cloud_type"] == ImCloudTypeOf(site));
            for (const auto& vm : infrastructures[0]["vms"]) {
                // The catalogue image as IM names it on that cloud.
                CHECK(vm["image"].get<std::string>().rfind(ImImagePrefixOf(site), 0) == 0);
            }
            res = rig.api.Call("DELETE", "/deployments/" + id);
            REQUIRE(res.status == 204);
            CHECK(rig.api.WaitFor(id, kDeleteDone, kTimeout)["status"] == "DELETE_COMPLETE");
            CHECK(rig.Infrastructures().empty());
            const Json rejected = rig.sim.Rejections();
            INFO(rejected.dump(2));
            CHECK(rejected.empty());
        }
    }
}
