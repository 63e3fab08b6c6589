#include "site_rig.hpp"

#include "test_support/poll_deployment.hpp"
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <pqxx/pqxx>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace orch::e2e {
namespace {

std::unique_ptr<http::Client> NewClient() {
    auto client = http::MakeClient({});
    if (!client) {
        throw std::runtime_error(client.error().message);
    }
    return std::move(*client);
}

std::string Quote(const std::string& s) {
    return Json(s).dump();
}

void WriteService(
    std::ostream& out,
    const SiteSpec& site,
    const std::string& suffix,
    const std::string& type,
    const std::string& endpoint,
    const std::string& extra
) {
    out << "      " << site.id << "_" << suffix << ":\n"
        << "        service_type: " << type << "\n"
        << "        endpoint: " << endpoint << "\n"
        << "        type: compute\n"
        << "        iam_enabled: false\n"
        << "        properties: {gpu_support: true, gpu_vendor: nvidia, gpu_model: " << Quote(site.gpu_model)
        << ", num_gpus: " << site.num_gpus << extra << "}\n";
}

std::string Catalogue(const std::vector<SiteSpec>& sites) {
    std::ostringstream out;
    out << "providers:\n";
    for (const auto& site : sites) {
        out << "  - id: " << site.id << "\n    name: " << site.id << "\n    services:\n";
        if (site.marathon) {
            // The Mesos agents of the simulator carry the attribute gpu_model.
            WriteService(
                out,
                site,
                "marathon",
                "eu.indigo-datacloud.marathon",
                site.sim->Url("marathon"),
                ", gpu_attribute: gpu_model, load_balancer_ips: [127.0.0.1]"
            );
        }
        if (site.chronos) {
            WriteService(
                out,
                site,
                "chronos",
                "eu.indigo-datacloud.chronos",
                site.sim->Url("chronos"),
                ", gpu_attribute: gpu_model"
            );
        }
        if (site.kubernetes) {
            WriteService(
                out,
                site,
                "k8s",
                "eu.deep.kubernetes",
                site.sim->Url("kubernetes"),
                ", gpu_resource: nvidia.com/gpu, gpu_product_label: nvidia.com/gpu.product, "
                "worker_nodes_ip: [127.0.0.1]" +
                    (site.flux_version.empty() ? std::string() : ", flux_version: " + site.flux_version)
            );
        }
    }
    return out.str();
}

std::string Sla(const std::vector<SiteSpec>& sites) {
    std::vector<SlaEntry> entries;
    for (const auto& site : sites) {
        const std::vector<std::pair<bool, std::string>> services = {
            {site.marathon, "marathon"}, {site.chronos, "chronos"}, {site.kubernetes, "k8s"}};
        for (const auto& [on, suffix] : services) {
            if (on) {
                entries.push_back({site.id, site.id + "_" + suffix, site.weight});
            }
        }
    }
    return SlaYaml(entries);
}

}  // namespace

std::string SlaYaml(const std::vector<SlaEntry>& entries) {
    std::ostringstream prefs;
    std::ostringstream slas;
    for (const auto& e : entries) {
        const std::string sla = "sla-" + e.service_id;
        prefs << "            - {sla_id: " << sla << ", service_id: " << e.service_id << ", weight: " << e.weight
              << "}\n";
        slas << "    - {id: " << sla << ", customer: e2e, provider: " << e.provider_id
             << ", services: [{type: computing, service_id: " << e.service_id << ", targets: []}]}\n";
    }
    return "e2e:\n  preferences:\n    - customer: e2e\n      preferences:\n        - service_type: compute\n"
           "          priority:\n" +
           prefs.str() + "  sla:\n" + slas.str();
}

std::string WriteOrchestratorFiles(
    const std::string& catalogue_yaml,
    const std::string& sla_yaml,
    const std::string& workflow_yaml,
    const std::string& top_level_yaml
) {
    const std::string dir = orch::test::BinaryDir() + "/e2e-sites-" + RandomUuid().substr(0, 8);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/catalogue.yaml") << catalogue_yaml;
    std::ofstream(dir + "/sla.yaml") << sla_yaml;
    // Quick polls and a quiet log unless the caller sets them (a key may appear only once).
    std::string workflow = "workflow:\n";
    for (const char* line : {"  first_poll: 200ms\n", "  max_poll: 1s\n", "  idle_poll: 100ms\n"}) {
        const std::string text(line);
        if (workflow_yaml.find(text.substr(0, text.find(':') + 1)) == std::string::npos) {
            workflow += text;
        }
    }
    const bool own_log = top_level_yaml.find("log:\n") != std::string::npos;
    std::ofstream(dir + "/orchestrator.yaml")
        << "auth:\n  mode: disabled\n"
        << (own_log ? "" : "log:\n  level: warn\n")
        << "tosca:\n  mirrors:\n    \"https://raw.githubusercontent.com/indigo-dc/tosca-types/\": "
        << orch::test::SharedDir()
        << "/tosca-corpus/indigo-dc-tosca-types/refs/\n"
        // The shipped types profile, as the demo maps it (tosca/profiles/examples import it).
        << "    \"http://127.0.0.1:8080/types/\": " << orch::test::SourceDir() << "/tosca/profiles/\n"
        << "placement:\n  default_group: e2e\n  catalogue: {type: file, path: " << dir
        << "/catalogue.yaml}\n  sla: {type: file, path: " << dir << "/sla.yaml}\n"
        << top_level_yaml << workflow << workflow_yaml;
    return dir + "/orchestrator.yaml";
}

SimProcess::SimProcess(const std::string& config_yaml, std::vector<std::string> extra)
    : process_(config_yaml, std::move(extra)), client_(NewClient()) {}

std::string SimProcess::Url(const std::string& api) const {
    return process_.Url(api);
}

Json SimProcess::Admin(const std::string& method, const std::string& path, const Json& body) const {
    http::ClientRequest request;
    request.method = method;
    request.url = Url("marathon") + path;
    if (!body.is_null()) {
        request.body = body.dump();
        request.headers.emplace_back("Content-Type", "application/json");
    }
    auto response = client_->Send(request);
    if (!response) {
        throw std::runtime_error("site-sim admin call failed: " + response.error().message);
    }
    if (response->status >= 300) {
        throw std::runtime_error(
            "site-sim admin call answered " + std::to_string(response->status) + ": " + response->body
        );
    }
    return response->body.empty() ? Json(nullptr) : Json::parse(response->body);
}

Json SimProcess::Objects() const {
    return Admin("GET", "/__sim/objects");
}
Json SimProcess::KubernetesDeployment(const std::string& deployment_id) const {
    std::string path;
    for (const auto& d : Objects()["kubernetes"].value("deployments", Json::array())) {
        const std::string name = d.value("name", "");  // "<namespace>/<name>"
        if (name.find(deployment_id) != std::string::npos) {
            path = "/apis/apps/v1/namespaces/" + name.substr(0, name.find('/')) + "/deployments/" +
                   name.substr(name.find('/') + 1);
        }
    }
    if (path.empty()) {
        throw std::runtime_error("site-sim holds no Kubernetes Deployment of " + deployment_id);
    }
    http::ClientRequest request;
    request.method = "GET";
    request.url = Url("kubernetes") + path;
    request.timeout = std::chrono::seconds(5);
    const auto response = client_->Send(request);
    if (!response || response->status != 200) {
        throw std::runtime_error("site-sim's Kubernetes API did not return the Deployment at " + path);
    }
    return Json::parse(response->body);
}

void SimProcess::AddFault(const Json& rule) const {
    Admin("POST", "/__sim/faults", rule);
}
void SimProcess::ClearFaults() const {
    Admin("DELETE", "/__sim/faults");
}
Json SimProcess::Faults() const {
    return Admin("GET", "/__sim/faults");
}
Json SimProcess::Traces() const {
    return Admin("GET", "/__sim/traces");
}

Json SimProcess::Rejections() const {
    return Admin("GET", "/__sim/rejections");
}

std::string WriteOrchestratorConfig(
    const std::vector<SiteSpec>& sites, const std::string& workflow_yaml, const std::string& top_level_yaml
) {
    return WriteOrchestratorFiles(Catalogue(sites), Sla(sites), workflow_yaml, top_level_yaml);
}

Api::Api(std::string base_url) : base_(std::move(base_url)), client_(NewClient()) {}

http::ClientResponse Api::Call(const std::string& method, const std::string& path, const std::string& body) {
    http::ClientRequest req;
    req.method = method;
    req.url = base_ + path;
    req.body = body;
    if (!body.empty()) {
        req.headers = {{"Content-Type", "application/json"}};
    }
    req.timeout = std::chrono::seconds(30);
    auto res = client_->Send(req);
    if (!res) {
        return http::ClientResponse{};  // status 0: the caller decides whether that is fatal
    }
    return *res;
}

std::string Api::Create(const std::string& template_text, const Json& parameters) {
    const Json body = {{"template", template_text}, {"parameters", parameters}};
    const auto res = Call("POST", "/deployments", body.dump());
    if (res.status != 201) {
        return "";
    }
    return Json::parse(res.body).at("uuid").get<std::string>();
}

std::optional<Json> Api::Get(const std::string& id) {
    // The admin's view (auth is disabled: the local user is admin), which still shows a deleted
    // deployment's record, so waits can tell DELETE_COMPLETE from DELETE_FAILED; users get 404.
    const auto res = Call("GET", "/deployments/" + id + "?includeDeleted=true");
    if (res.status != 200) {
        return std::nullopt;
    }
    return Json::parse(res.body);
}

Json Api::WaitFor(const std::string& id, const std::set<std::string>& statuses, std::chrono::seconds timeout) {
    return orch::test::PollDeployment(
               [&] { return Get(id); },
               [&](const Json& d) { return statuses.count(d.value("status", "")) != 0; },
               timeout
    )
        .last;
}

Json AttemptsOf(const std::string& dsn, const std::string& deployment_id) {
    pqxx::connection conn(dsn);
    pqxx::work tx(conn);
    const auto rows = tx.exec_params(
        "SELECT seq, provider_id, service_id, COALESCE(outcome, ''), COALESCE(reason, '') FROM attempts "
        "WHERE deployment_id = $1::uuid ORDER BY seq",
        deployment_id
    );
    Json out = Json::array();
    for (const auto& row : rows) {
        out.push_back(
            {{"seq", row[0].as<int>()},
             {"provider_id", row[1].as<std::string>()},
             {"service_id", row[2].as<std::string>()},
             {"outcome", row[3].as<std::string>()},
             {"reason", row[4].as<std::string>()}}
        );
    }
    return out;
}

std::string CorpusTemplate(const std::string& relative_path) {
    return orch::test::ReadFile(orch::test::SharedDir() + "/tosca-corpus/" + relative_path);
}

std::string InsertAfter(std::string text, const std::string& anchor, const std::string& line) {
    const auto at = text.find(anchor);
    if (at == std::string::npos) {
        throw std::runtime_error("template text lacks '" + anchor + "'");
    }
    const auto line_start = text.rfind('\n', at) + 1;
    const auto indent = text.substr(line_start, text.find_first_not_of(' ', line_start) - line_start);
    const auto line_end = text.find('\n', at);
    text.insert(line_end, "\n" + indent + line);
    return text;
}

std::string WithGpuModelRuntime(std::string text, const std::string& extra_node_types = "") {
    // The INDIGO Docker host capability declares num_gpus but not gpu_model/gpu_vendor (only the
    // VM capability does), so a template asking for a GPU model declares a runtime whose host
    // capability adds them, the way TOSCA lets a user refine the INDIGO types.
    const std::string types =
        "capability_types:\n"
        "  e2e.capabilities.GpuDockerHost:\n"
        "    derived_from: tosca.capabilities.indigo.Container.Docker\n"
        "    properties:\n"
        "      gpu_vendor: {type: string, required: false}\n"
        "      gpu_model: {type: string, required: false}\n\n"
        "node_types:\n"
        "  e2e.nodes.GpuDockerRuntime:\n"
        "    derived_from: tosca.nodes.indigo.Container.Runtime.Docker\n"
        "    capabilities:\n"
        "      host:\n"
        "        type: e2e.capabilities.GpuDockerHost\n" +
        extra_node_types + "\n";
    text.insert(text.find("topology_template:"), types);
    for (const std::string runtime :
         {"\"tosca.nodes.indigo.Container.Runtime.Docker\"", "tosca.nodes.indigo.Container.Runtime.Docker"}) {
        const auto at = text.find("type: " + runtime);
        if (at != std::string::npos) {
            text.replace(at, 6 + runtime.size(), "type: e2e.nodes.GpuDockerRuntime");
            return text;
        }
    }
    throw std::runtime_error("template has no Docker runtime node");
}

std::string WithGpuModel(std::string text, const std::string& model) {
    text = WithGpuModelRuntime(std::move(text));
    return InsertAfter(std::move(text), "num_gpus: { get_input: num_gpus }", "gpu_model: " + model);
}

std::string KeplerWithGpu(const std::string& model) {
    auto text = InsertAfter(CorpusTemplate(kKeplerBatch), "mem_size: { get_input: mem }", "num_gpus: 1");
    return model.empty() ? text : InsertAfter(WithGpuModelRuntime(text), "num_gpus: 1", "gpu_model: " + model);
}

// kubernetes_app.yaml (the Java orchestrator's branch-only fixture): its node type was never
// merged into the INDIGO types, so the template declares it itself (as the 2020 branch did);
// the external (dvdi) volume is dropped (refused on Kubernetes) and a GPU of `model` asked.
std::string KubernetesWithGpu(const std::string& model) {
    std::string text = CorpusTemplate(kKubernetesApp);
    const std::string kubernetes_type =
        "  tosca.nodes.indigo.Container.Application.Docker.Kubernetes:\n"
        "    derived_from: tosca.nodes.indigo.Container.Application.Docker\n"
        "    properties:\n"
        "      replicas: {type: integer, required: false, default: 1}\n";
    const std::string volumes = "volumes: [ 'kubernetes:/data:rw:dvdi:rexray', '/data:rw' ]";
    text.replace(text.find(volumes), volumes.size(), "volumes: [ '/data:rw' ]");
    text = InsertAfter(text, "mem_size: 256 Mb", "num_gpus: 1");
    text = InsertAfter(WithGpuModelRuntime(text, kubernetes_type), "num_gpus: 1", "gpu_model: " + model);
    // The fixture's output reads an attribute no connector defines; keep the port part.
    const auto outputs = text.find("  outputs:");
    text.erase(outputs);
    text +=
        "  outputs:\n    endpoint:\n      value: { concat: [ { get_attribute: [ kubernetes, endpoints, 0 ] } ] }\n"
        "    node_port:\n      value: { get_attribute: [ docker, host, publish_ports, 0, target ] }\n";
    return text;
}

std::vector<std::string> ProviderObjects(const Json& objects) {
    std::vector<std::string> out;
    const Json& marathon = objects.at("marathon");
    for (const auto& g : marathon.at("groups")) {
        out.push_back("marathon-group:" + g.get<std::string>());
    }
    for (const auto& a : marathon.at("apps")) {
        out.push_back("marathon-app:" + a.get<std::string>());
    }
    for (const auto& t : marathon.at("tasks")) {
        out.push_back("marathon-task:" + t.value("app", std::string()) + "/" + t.value("id", std::string()));
    }
    for (const auto& j : objects.at("chronos").at("jobs")) {
        out.push_back("chronos-job:" + j.at("name").get<std::string>());
    }
    for (const auto& [kind, list] : objects.at("kubernetes").items()) {
        for (const auto& entry : list) {
            out.push_back("kubernetes-" + kind + ":" + entry.at("name").get<std::string>());
        }
    }
    return out;
}

bool Mentions(const std::vector<std::string>& objects, const std::string& deployment_id) {
    for (const auto& o : objects) {
        if (o.find(deployment_id) != std::string::npos) {
            return true;
        }
    }
    return false;
}

}  // namespace orch::e2e
