// Elastic clusters end to end: the real orchestrator binary with the autoscaler on, PostgreSQL,
// a site-sim whose IM simulator holds the VMs, and a real Prometheus (Debian package, started by
// scripts/prometheus/start) scraping a fixture exporter whose queue gauge the test sets. The
// cluster grows under a queue and shrinks back when it drains, through the PUT update path,
// never beyond its min/max, and each decision is an `elastic` event with the signal value.
#include "../sites/site_rig.hpp"
#include "test_support/elastic_cluster_template.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/process.hpp"
#include "test_support/real_prometheus.hpp"
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <thread>

namespace {

using orch::Json;
using orch::test::RealPrometheus;
using std::chrono::seconds;

const std::set<std::string> kCreateDone = {"CREATE_COMPLETE", "CREATE_FAILED"};

// One OpenStack site whose VMs go through the simulated IM.
std::string Catalogue(const std::string& im_url) {
    return "providers:\n  - id: IM-A\n    name: IM-A\n    services:\n      IM-A_nova:\n"
           "        service_type: org.openstack.nova\n        endpoint: https://keystone.IM-A.example:5000/v3\n"
           "        type: compute\n        region: RegionOne\n        iam_enabled: false\n"
           "        public_ip_assignable: true\n        properties: {im_endpoint: \"" +
           im_url +
           "\"}\ntenants:\n  IM-A-e2e:\n    tenant: {tenant_id: e2e-project, tenant_name: e2e, service: IM-A_nova, "
           "iam_organisation: e2e, private_network_name: private, public_network_name: public}\n"
           "    flavors:\n"
           "      - {flavor_id: \"1\", flavor_name: m1.small, num_vcpus: 1, ram: 2048, disk: 20, num_gpus: 0}\n"
           "      - {flavor_id: \"2\", flavor_name: m1.large, num_vcpus: 4, ram: 8192, disk: 80, num_gpus: 0}\n"
           "    images:\n"
           "      - {image_id: ubuntu-16.04, image_name: linux-ubuntu-16.04-vmi, architecture: x86_64, type: linux, "
           "distribution: ubuntu, version: \"16.04\"}\n";
}

constexpr char kSla[] = R"(e2e:
  preferences:
    - customer: e2e
      preferences:
        - service_type: compute
          priority:
            - {sla_id: sla-IM-A, service_id: IM-A_nova, weight: 1.0}
  sla:
    - {id: sla-IM-A, customer: e2e, provider: IM-A, services: [{type: computing, service_id: IM-A_nova, targets: []}]}
)";

// The autoscaler on, with durations short enough for a test: a sweep a second, a level must hold
// 2 s, 3 s of quiet after each scale, two workers per step at most.
std::string TopLevel(const std::string& prometheus_url) {
    return "im:\n  username: e2e-im\n  password: e2e-im-secret\n"
           "credentials:\n  IM-A_nova: {username: e2e, password: e2e-os-secret}\n"
           "elastic:\n  enabled: true\n  prometheus_url: \"" +
           prometheus_url +
           "\"\n  interval: 1s\n  sustain: 2s\n  cooldown: 3s\n  scale_out_above: 0\n  scale_in_below: 0\n"
           "  jobs_per_worker: 1\n  max_step: 2\n";
}

constexpr const char* kElasticCluster = orch::test::kElasticClusterTemplate;

// The cluster's exporter: one queue gauge per deployment the test names, at the value it sets.
struct QueueExporter {
    QueueExporter() : routes(std::make_shared<orch::test::FixtureRoutes>()), server(Init(routes, *this)) {}

    static std::shared_ptr<orch::test::FixtureRoutes> Init(
        const std::shared_ptr<orch::test::FixtureRoutes>& r, QueueExporter& self
    ) {
        r->Route("GET", "/metrics", [&self](const orch::test::FixtureRequest&) {
            std::string body = "# TYPE paas_cluster_pending_jobs gauge\n";
            const std::lock_guard lock(self.mutex);
            if (!self.deployment.empty()) {
                body += "paas_cluster_pending_jobs{deployment_id=\"" + self.deployment + "\"} " +
                        std::to_string(self.queue) + "\n";
            }
            return orch::test::FixtureResponse{200, "text/plain; version=0.0.4", body};
        });
        return r;
    }
    void Set(const std::string& id, int value) {
        const std::lock_guard lock(mutex);
        deployment = id;
        queue = value;
    }

    std::mutex mutex;
    std::string deployment;
    int queue = 0;
    std::shared_ptr<orch::test::FixtureRoutes> routes;
    orch::test::FixtureHttpServer server;
};

int Workers(orch::e2e::Api& api, const std::string& id) {
    const auto res = api.Call("GET", "/deployments/" + id + "/resources?size=100");
    REQUIRE(res.status == 200);
    int n = 0;
    for (const auto& r : Json::parse(res.body).value("content", Json::array())) {
        const std::string state = r.value("state", "");
        n += r.value("toscaNodeName", "") == "lrms_wn" && state != "DELETING" && state != "DELETED" ? 1 : 0;
    }
    return n;
}

// Polls until the deployment is UPDATE_COMPLETE with `want` workers; records every count seen.
bool WaitForWorkers(orch::e2e::Api& api, const std::string& id, int want, std::vector<int>& seen, seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto d = api.Get(id);
        const int n = Workers(api, id);
        seen.push_back(n);
        if (d && (*d)["status"] == "UPDATE_COMPLETE" && n == want) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    return false;
}

Json ElasticEvents(const std::string& dsn, const std::string& id) {
    pqxx::connection conn(dsn);
    pqxx::read_transaction tx(conn);
    Json out = Json::array();
    for (const auto& row : tx.exec_params(
             "SELECT data::text FROM events WHERE deployment_id = $1::uuid AND type = 'elastic' ORDER BY id", id
         )) {
        out.push_back(Json::parse(row[0].as<std::string>()));
    }
    return out;
}

// Prometheus on the exporter, PostgreSQL, the IM simulator, and the orchestrator configuration.
struct ElasticRig {
    ElasticRig()
        : prometheus("127.0.0.1:" + std::to_string(exporter.server.port())),
          sim("speed: 20\nim:\n  tosca_mirrors: \"https://raw.githubusercontent.com/indigo-dc/tosca-types/=" +
              orch::test::SharedDir() + "/tosca-corpus/indigo-dc-tosca-types/refs/\"\n") {
        REQUIRE(prometheus.started());  // fails, not skips, when the prometheus binary is missing
        config = orch::e2e::WriteOrchestratorFiles(Catalogue(sim.Url("im")), kSla, "", TopLevel(prometheus.url()));
    }

    std::unique_ptr<orch::test::OrchestratorProcess> StartReplica() {
        auto replica =
            std::make_unique<orch::test::OrchestratorProcess>(db.dsn(), std::map<std::string, std::string>{}, config);
        REQUIRE(orch::test::WaitForStatus(replica->BaseUrl() + "/readyz", 200, seconds(20)));
        return replica;
    }

    // Creates the cluster through `api` and waits for it: one worker.
    std::string CreateCluster(orch::e2e::Api& api) {
        const std::string id = api.Create(kElasticCluster, Json::object());
        REQUIRE_FALSE(id.empty());
        const Json created = api.WaitFor(id, kCreateDone, seconds(30));
        INFO(created.dump(2));
        REQUIRE(created["status"] == "CREATE_COMPLETE");
        REQUIRE(Workers(api, id) == 1);
        return id;
    }

    QueueExporter exporter;
    RealPrometheus prometheus;
    orch::test::TestDatabase db;
    orch::e2e::SimProcess sim;
    std::string config;
};

void CheckDecisions(const Json& events) {
    INFO(events.dump(2));
    REQUIRE(events.size() == 2);  // one decision each way: no replica decided twice
    CHECK(events[0]["action"] == "scale_out");
    CHECK(events[0]["from"] == 1);
    CHECK(events[0]["to"] == 3);
    CHECK(events[0]["queue"] == 5.0);
    CHECK(events[1]["action"] == "scale_in");
    CHECK(events[1]["from"] == 3);
    CHECK(events[1]["to"] == 1);
    CHECK(events[1]["queue"] == 0.0);
}

}  // namespace

TEST_CASE("elastic e2e: a cluster scales out under its queue and back in when it drains", "[e2e][elastic]") {
    ElasticRig rig;
    const auto orchestrator = rig.StartReplica();
    orch::e2e::Api api(orchestrator->BaseUrl());
    const std::string id = rig.CreateCluster(api);

    // Five jobs queue: one step of two workers (1 -> 3, the maximum), not five.
    rig.exporter.Set(id, 5);
    std::vector<int> seen;
    REQUIRE(WaitForWorkers(api, id, 3, seen, seconds(30)));
    // Still queued, at the maximum: it stays there.
    std::this_thread::sleep_for(seconds(5));
    CHECK(Workers(api, id) == 3);

    // The queue drains: back to the minimum of one (one step of two), never below.
    rig.exporter.Set(id, 0);
    REQUIRE(WaitForWorkers(api, id, 1, seen, seconds(30)));
    std::this_thread::sleep_for(seconds(5));
    CHECK(Workers(api, id) == 1);
    CHECK(*std::max_element(seen.begin(), seen.end()) <= 3);
    CHECK(*std::min_element(seen.begin(), seen.end()) >= 1);
    CheckDecisions(ElasticEvents(rig.db.dsn(), id));

    const auto res = api.Call("DELETE", "/deployments/" + id);
    CHECK(res.status == 204);
    const Json rejected = rig.sim.Rejections();
    INFO(rejected.dump(2));
    CHECK(rejected.empty());
}

TEST_CASE(
    "elastic e2e: two replicas share the sweep, and one killed with -9 loses nothing", "[e2e][elastic][reliability]"
) {
    ElasticRig rig;
    auto a = rig.StartReplica();
    const auto b = rig.StartReplica();
    orch::e2e::Api api(b->BaseUrl());
    const std::string id = rig.CreateCluster(api);

    rig.exporter.Set(id, 5);
    std::vector<int> seen;
    REQUIRE(WaitForWorkers(api, id, 3, seen, seconds(30)));
    // Replica A dies without a word while the queue drains: B's sweep takes over the memory.
    rig.exporter.Set(id, 0);
    a->process().Stop(SIGKILL, seconds(10));
    REQUIRE(WaitForWorkers(api, id, 1, seen, seconds(40)));
    std::this_thread::sleep_for(seconds(4));
    CHECK(Workers(api, id) == 1);
    CHECK(*std::max_element(seen.begin(), seen.end()) <= 3);
    CHECK(*std::min_element(seen.begin(), seen.end()) >= 1);
    CheckDecisions(ElasticEvents(rig.db.dsn(), id));
}
