// Shared pieces of the reliability suite: the simulated sites, the orchestrator's configuration
// for them, tolerant HTTP calls and the "deployed exactly once" check against the simulators.
#include "reliability_harness.hpp"

#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/uuid.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

namespace orch::reliability {
namespace {

// Room for a few hundred one-CPU apps per site; the clock runs 20x so a task starts in 50 ms.
constexpr const char* kSiteConfig =
    "speed: 20\n"
    "mesos_agents:\n"
    "  - {hostname: big-1.sim, cpus: 2000, mem_mb: 4000000, disk_mb: 100000000}\n"
    "  - {hostname: big-2.sim, cpus: 2000, mem_mb: 4000000, disk_mb: 100000000}\n";

std::string Provider(const std::string& id, const std::string& url) {
    return "  - id: " + id + "\n    name: " + id + "\n    services:\n      " + id +
           "_mesos:\n        service_type: eu.indigo-datacloud.mesos\n        endpoint: " + url +
           "\n        type: compute\n        iam_enabled: false\n        properties: {num_cpus: 4000, mem_total: "
           "8000000}\n      " +
           id + "_marathon:\n        service_type: eu.indigo-datacloud.marathon\n        endpoint: " + url +
           "\n        type: compute\n        iam_enabled: false\n        service_parent_id: " + id +
           "_mesos\n        properties: {load_balancer_ips: [127.0.0.1]}\n";
}

std::string Sla(const std::string& id) {
    return "    - {id: sla-" + id + ", customer: reliability, provider: " + id +
           ", services: [{type: computing, service_id: " + id + "_marathon, targets: []}]}\n";
}

std::unique_ptr<http::Client>& SharedClient() {
    static auto client = std::move(*http::MakeClient({}));
    return client;
}

}  // namespace

Reply Send(
    const std::string& method, const std::string& url, const std::string& body, std::chrono::milliseconds timeout
) {
    http::ClientRequest req;
    req.method = method;
    req.url = url;
    req.body = body;
    if (!body.empty()) {
        req.headers.emplace_back("Content-Type", "application/json");
    }
    req.timeout = timeout;
    auto res = SharedClient()->Send(req);
    if (!res) {
        return {};
    }
    Reply reply{res->status, nullptr};
    if (!res->body.empty()) {
        reply.body = Json::parse(res->body, nullptr, false);
    }
    return reply;
}

std::string SmallCreateBody() {
    static const std::string body = Json{
        {"template",
         test::ReadFile(
             test::SharedDir() + "/tosca-corpus/indigo-dc-orchestrator/src/test/resources/tosca/marathon_app.yaml"
         )}}.dump();
    return body;
}

bool IsTerminal(const std::string& status) {
    return status.size() > 9 && (status.ends_with("_COMPLETE") || status.ends_with("_FAILED"));
}

TwoSites::TwoSites() : a_(kSiteConfig), b_(kSiteConfig) {}

std::string TwoSites::WriteConfig(const std::string& lease, int workers) const {
    const std::string dir = test::BinaryDir() + "/reliability-" + RandomUuid().substr(0, 8);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/catalogue.yaml")
        << "providers:\n"
        << Provider("SIM-A", a_.Url("marathon")) << Provider("SIM-B", b_.Url("marathon"));
    std::ofstream(
        dir + "/sla.yaml"
    ) << "reliability:\n  preferences:\n    - customer: reliability\n      preferences:\n"
      << "        - service_type: compute\n          priority:\n"
      << "            - {sla_id: sla-SIM-A, service_id: SIM-A_marathon, weight: 0.5}\n"
      << "            - {sla_id: sla-SIM-B, service_id: SIM-B_marathon, weight: 0.5}\n"
      << "  sla:\n"
      << Sla("SIM-A") << Sla("SIM-B");
    std::ofstream(dir + "/orchestrator.yaml")
        << "auth:\n  mode: disabled\n"
        << "log:\n  level: info\n"
        << "tosca:\n  mirrors:\n    \"https://raw.githubusercontent.com/indigo-dc/tosca-types/\": " << test::SharedDir()
        << "/tosca-corpus/indigo-dc-tosca-types/refs/\n"
        << "placement:\n  default_group: reliability\n  catalogue: {type: file, path: " << dir
        << "/catalogue.yaml}\n  sla: {type: file, path: " << dir << "/sla.yaml}\n"
        << "workflow:\n  lease: " << lease << "\n  workers: " << workers
        << "\n  first_poll: 100ms\n  max_poll: 500ms\n  idle_poll: 50ms\n";
    return dir + "/orchestrator.yaml";
}

std::map<std::string, std::vector<std::string>> TwoSites::GroupsBySite() {
    std::map<std::string, std::vector<std::string>> out;
    const std::vector<std::pair<std::string, sim::test::SiteSimProcess*>> sites = {{"SIM-A", &a_}, {"SIM-B", &b_}};
    for (const auto& [name, site] : sites) {
        const Json objects = site->Admin("GET", "/__sim/objects");
        auto& groups = out[name];
        for (const auto& g : objects.at("marathon").at("groups")) {
            groups.push_back(g.get<std::string>());
        }
        // The Marathon API's own listing agrees: every app lies in a listed group, every group has one.
        const Reply apps = Send("GET", site->Url("marathon") + "/v2/apps");
        REQUIRE(apps.status == 200);
        std::set<std::string> groups_with_apps;
        for (const auto& app : apps.body.at("apps")) {
            const auto id = app.at("id").get<std::string>();
            groups_with_apps.insert(id.substr(0, id.find('/', 1)));
        }
        CHECK(groups_with_apps == std::set<std::string>(groups.begin(), groups.end()));
    }
    return out;
}

std::map<std::string, std::string> ListAll(const std::string& base_url) {
    std::map<std::string, std::string> out;
    for (int page = 0;; ++page) {
        const auto reply = Send("GET", base_url + "/deployments?size=2000&page=" + std::to_string(page));
        REQUIRE(reply.status == 200);
        for (const auto& d : reply.body.at("content")) {
            out[d.at("uuid").get<std::string>()] = d.at("status").get<std::string>();
        }
        if (page + 1 >= reply.body.at("page").at("totalPages").get<int>()) {
            return out;
        }
    }
}

std::map<std::string, std::string> WaitAllTerminal(const std::string& base_url, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto all = ListAll(base_url);
        const bool done = std::all_of(all.begin(), all.end(), [](const auto& kv) { return IsTerminal(kv.second); });
        if (done || std::chrono::steady_clock::now() > deadline) {
            return all;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

void CheckDeployedExactlyOnce(TwoSites& sites, const std::map<std::string, std::string>& statuses) {
    std::map<std::string, int> copies;  // "/<uuid>" -> number of sites holding that group
    for (const auto& [site, groups] : sites.GroupsBySite()) {
        for (const auto& g : groups) {
            ++copies[g];
            CHECK(statuses.count(g.substr(1)) == 1);  // no group of a deployment the API does not know
        }
    }
    int complete = 0;
    for (const auto& [id, status] : statuses) {
        const int n = copies.count("/" + id) != 0 ? copies.at("/" + id) : 0;
        INFO("deployment " << id << " is " << status);
        if (status == "CREATE_COMPLETE") {
            ++complete;
            CHECK(n == 1);
        } else {
            CHECK(n == 0);
        }
    }
    CHECK(complete == static_cast<int>(statuses.size()));  // roomy sites: every one must succeed
}

}  // namespace orch::reliability
