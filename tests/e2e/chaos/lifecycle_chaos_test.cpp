// Chaos for the lifecycle policies (label `reliability`, docs/lifecycle.md): two orchestrator
// replicas on one PostgreSQL, killed with SIGKILL in turn and restarted, the database restarted
// once, while a self-healing deployment is redeployed off a site that stopped answering, an idle
// GPU deployment is notified then stopped, and an elastic cluster scales out under its queue.
// Each outcome must happen exactly once: one redeploy (two attempts, one redeploy event, the old
// site emptied once it answers), one notice then one reclamation, one scale to three workers. The
// policies come from the groups' entries in the SLA file (`self_healing:`, `idle:`).
#include "../sites/site_rig.hpp"
#include "chaos_rig.hpp"
#include "test_support/elastic_cluster_template.hpp"
#include "test_support/fixture_http_server.hpp"
#include "test_support/gpu_marathon_site.hpp"
#include "test_support/real_prometheus.hpp"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

namespace {

using orch::Json;
using orch::e2e::SimProcess;
using orch::e2e::chaos::Orchestrator;
using orch::e2e::chaos::PrivatePg;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

std::string MarathonSim(const std::string& tag) {
    return "speed: 20\n"
           "mesos_agents:\n"
           "  - {hostname: gpu-" +
           tag + ".sim, cpus: 32, mem_mb: 131072, disk_mb: 500000, gpus: 8, attributes: {gpu_model: Tesla-T4}}\n";
}

std::string MarathonProvider(const std::string& id, const SimProcess& sim) {
    return "  - id: " + id + "\n    name: " + id + "\n    services:\n      " + id +
           "_marathon:\n        service_type: eu.indigo-datacloud.marathon\n        endpoint: " + sim.Url("marathon") +
           "\n        type: compute\n        iam_enabled: false\n"
           "        properties: {gpu_support: true, gpu_vendor: nvidia, gpu_model: \"Tesla T4\", num_gpus: 8, "
           "gpu_attribute: gpu_model, load_balancer_ips: [127.0.0.1]}\n";
}

// Marathon sites A and B, and an OpenStack site whose VMs go through the simulated IM.
std::string Catalogue(const SimProcess& a, const SimProcess& b, const SimProcess& im) {
    return "providers:\n" + MarathonProvider("SITE-A", a) + MarathonProvider("SITE-B", b) +
           "  - id: IM-A\n    name: IM-A\n    services:\n      IM-A_nova:\n"
           "        service_type: org.openstack.nova\n        endpoint: https://keystone.IM-A.example:5000/v3\n"
           "        type: compute\n        region: RegionOne\n        iam_enabled: false\n"
           "        public_ip_assignable: true\n        properties: {im_endpoint: \"" +
           im.Url("im") +
           "\"}\ntenants:\n  IM-A-e2e:\n    tenant: {tenant_id: e2e-project, tenant_name: e2e, service: IM-A_nova, "
           "iam_organisation: e2e, private_network_name: private, public_network_name: public}\n"
           "    flavors:\n"
           "      - {flavor_id: \"1\", flavor_name: m1.small, num_vcpus: 1, ram: 2048, disk: 20, num_gpus: 0}\n"
           "    images:\n"
           "      - {image_id: ubuntu-16.04, image_name: linux-ubuntu-16.04-vmi, architecture: x86_64, type: linux, "
           "distribution: ubuntu, version: \"16.04\"}\n";
}

// Group e2e (the default): A before B, IM-A for VMs, self-healing on by the group's policy.
// Group gpu: site B only, idle reclamation by the group's policy (idle 4 s, then a 4 s notice).
std::string Slas() {
    return orch::e2e::SlaYaml(
               {{"SITE-A", "SITE-A_marathon", 1.0}, {"SITE-B", "SITE-B_marathon", 0.5}, {"IM-A", "IM-A_nova", 1.0}}
           ) +
           "  self_healing: {enabled: true}\n"
           "gpu:\n"
           "  preferences:\n"
           "    - customer: gpu\n"
           "      preferences:\n"
           "        - service_type: compute\n"
           "          priority: [{sla_id: sla-gpu-b, service_id: SITE-B_marathon, weight: 1.0}]\n"
           "  sla:\n"
           "    - {id: sla-gpu-b, customer: gpu, provider: SITE-B, services: [{type: computing, service_id: "
           "SITE-B_marathon, targets: []}]}\n"
           "  idle: {enabled: true, threshold_percent: 10, duration: 4s, notice: 4s, action: stop}\n";
}

// Short durations: health checks every second, lost after 3 s of silence; sweeps every second.
std::string TopLevel(const std::string& prometheus_url) {
    return "im:\n  username: e2e-im\n  password: e2e-im-secret\n"
           "credentials:\n  IM-A_nova: {username: e2e, password: e2e-os-secret}\n"
           "self_healing:\n  check_interval: 1s\n  lost_after: 3s\n  cleanup_max_backoff: 2s\n"
           "idle:\n  prometheus_url: \"" +
           prometheus_url +
           "\"\n  interval: 1s\n"
           "elastic:\n  enabled: true\n  prometheus_url: \"" +
           prometheus_url +
           "\"\n  interval: 1s\n  sustain: 2s\n  cooldown: 3s\n  scale_out_above: 0\n  scale_in_below: 0\n"
           "  jobs_per_worker: 1\n  max_step: 2\n";
}

constexpr const char* kElasticCluster = orch::test::kElasticClusterTemplate;

// The exporter Prometheus scrapes: the idle deployment's DCGM utilisation (with the deployment-id
// label a non-Kubernetes site adds) and the cluster's queue gauge, at values the test sets.
class Exporter {
   public:
    Exporter() : routes_(std::make_shared<orch::test::FixtureRoutes>()), server_(routes_) {
        routes_->Route("GET", "/metrics", [this](const orch::test::FixtureRequest&) {
            const std::lock_guard lock(mutex_);
            std::string text = "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n# TYPE paas_cluster_pending_jobs gauge\n";
            if (!idle_.empty()) {
                for (int gpu = 0; gpu < 2; ++gpu) {
                    text += "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + std::to_string(gpu) + "\",modelName=\"Tesla T4\"," +
                            "orchestrator_deployment=\"" + idle_ + "\"} 2\n";
                }
            }
            if (!cluster_.empty()) {
                text += "paas_cluster_pending_jobs{deployment_id=\"" + cluster_ + "\"} 5\n";
            }
            return orch::test::FixtureResponse{200, "text/plain; version=0.0.4", text};
        });
    }
    /// From now on: `idle` at 2 % on both its GPUs, five jobs queued on `cluster`.
    void Publish(const std::string& idle, const std::string& cluster) {
        const std::lock_guard lock(mutex_);
        idle_ = idle;
        cluster_ = cluster;
    }
    std::string Target() const { return "127.0.0.1:" + std::to_string(server_.port()); }

   private:
    std::shared_ptr<orch::test::FixtureRoutes> routes_;
    orch::test::FixtureHttpServer server_;
    std::mutex mutex_;
    std::string idle_;
    std::string cluster_;
};

// Two replicas; a call goes to one, then to the other if the first did not answer (killed).
class Replicas {
   public:
    Replicas(const std::string& dsn, const std::string& config) : a_(dsn, config), b_(dsn, config) {}

    orch::http::ClientResponse Call(const std::string& method, const std::string& path, const std::string& body = "") {
        const bool first_a = (turn_++ % 2) == 0;
        for (Orchestrator* o : first_a ? std::array{&a_, &b_} : std::array{&b_, &a_}) {
            orch::e2e::Api api(o->Url());
            auto res = api.Call(method, path, body);
            if (res.status != 0 && res.status != 503) {
                return res;
            }
        }
        return {};
    }
    std::optional<Json> Get(const std::string& id) {
        const auto res = Call("GET", "/deployments/" + id);
        return res.status == 200 ? std::optional<Json>(Json::parse(res.body)) : std::nullopt;
    }
    Orchestrator& Pick(bool a) { return a ? a_ : b_; }
    bool Ready() {
        return orch::test::WaitForStatus(a_.Url() + "/readyz", 200, seconds(30)) &&
               orch::test::WaitForStatus(b_.Url() + "/readyz", 200, seconds(30));
    }
    std::string Logs() { return "--- replica A\n" + a_.Log() + "\n--- replica B\n" + b_.Log(); }

   private:
    Orchestrator a_;
    Orchestrator b_;
    std::atomic<unsigned> turn_{0};
};

// The states of node `name`'s live instances (DELETING/DELETED ones are going away).
std::vector<std::string> NodeStates(Replicas& r, const std::string& id, const std::string& name) {
    const auto res = r.Call("GET", "/deployments/" + id + "/resources?size=100");
    std::vector<std::string> states;
    if (res.status != 200) {
        return states;
    }
    for (const auto& resource : Json::parse(res.body).value("content", Json::array())) {
        const std::string state = resource.value("state", "");
        if (resource.value("toscaNodeName", "") == name && state != "DELETING" && state != "DELETED") {
            states.push_back(state);
        }
    }
    return states;
}

// Rows of the event log of one deployment: (type, data).
std::vector<std::pair<std::string, Json>> Events(const std::string& dsn, const std::string& id) {
    pqxx::connection conn(dsn);
    pqxx::read_transaction tx(conn);
    std::vector<std::pair<std::string, Json>> out;
    for (const auto& row :
         tx.exec_params("SELECT type, data::text FROM events WHERE deployment_id = $1::uuid ORDER BY id", id)) {
        out.emplace_back(row[0].as<std::string>(), Json::parse(row[1].as<std::string>()));
    }
    return out;
}

bool Holds(const SimProcess& sim, const std::string& id) {
    return orch::e2e::Mentions(orch::e2e::ProviderObjects(sim.Objects()), id);
}

// What the test waits for: the three outcomes, each seen once it happened.
struct Outcomes {
    bool healed = false;
    bool stopped = false;
    bool scaled = false;
    bool All() const { return healed && stopped && scaled; }
};

Outcomes Look(Replicas& r, const std::string& heal, const std::string& idle, const std::string& cluster) {
    Outcomes seen;
    const auto h = r.Get(heal);
    seen.healed =
        h && (*h)["status"] == "CREATE_COMPLETE" && (*h).value("cloudProviderName", "") == std::string("SITE-B");
    seen.stopped = NodeStates(r, idle, "app") == std::vector<std::string>{"STOPPED"};
    const auto c = r.Get(cluster);
    seen.scaled = c && (*c)["status"] == "UPDATE_COMPLETE" && NodeStates(r, cluster, "lrms_wn").size() == 3;
    return seen;
}

}  // namespace

TEST_CASE(
    "lifecycle chaos: a redeploy, a reclamation and a scale each happen once while replicas and the database die",
    "[e2e][reliability][lifecycle]"
) {
    const auto started = Clock::now();
    PrivatePg pg;
    SimProcess a(MarathonSim("a"));
    SimProcess b(MarathonSim("b"));
    SimProcess im(
        "speed: 20\nim:\n  tosca_mirrors: \"https://raw.githubusercontent.com/indigo-dc/tosca-types/=" +
        orch::test::SharedDir() + "/tosca-corpus/indigo-dc-tosca-types/refs/\"\n"
    );
    Exporter exporter;
    orch::test::RealPrometheus prometheus(exporter.Target());
    REQUIRE(prometheus.started());  // fails, not skips, when the prometheus binary is missing
    const std::string config = orch::e2e::WriteOrchestratorFiles(
        Catalogue(a, b, im), Slas(), "  lease: 2s\n  workers: 4\n", TopLevel(prometheus.url())
    );
    Replicas replicas(pg.dsn(), config);
    REQUIRE(replicas.Ready());

    // The three deployments, running before the chaos starts.
    const auto create = [&](const Json& body) {
        const auto res = replicas.Call("POST", "/deployments", body.dump());
        INFO(res.body);
        REQUIRE(res.status == 201);
        return Json::parse(res.body)["uuid"].get<std::string>();
    };
    // The group is named: a request without userGroup gets the operator's default, not the
    // SLA policy of placement.default_group (lifecycle.md, "Per-group policies").
    const std::string heal = create(
        {{"template", orch::e2e::CorpusTemplate(orch::e2e::kWebdav)},
         {"parameters", {{"docker_image", "deephdc/deep-oc-generic"}, {"num_gpus", 1}}},
         {"userGroup", "e2e"}}
    );
    const std::string idle = create({{"template", orch::test::GpuMarathonApp(2)}, {"userGroup", "gpu"}});
    const std::string cluster = create({{"template", kElasticCluster}});
    for (const auto& [id, site] :
         std::vector<std::pair<std::string, std::string>>{{heal, "SITE-A"}, {idle, "SITE-B"}, {cluster, "IM-A"}}) {
        Json d = Json::object();
        const auto deadline = Clock::now() + seconds(40);
        while (Clock::now() < deadline && d.value("status", "") != "CREATE_COMPLETE") {
            d = replicas.Get(id).value_or(Json::object());
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        INFO(d.dump(2) << "\n" << replicas.Logs());
        REQUIRE(d.value("status", "") == "CREATE_COMPLETE");
        REQUIRE(d.value("cloudProviderName", "") == site);
    }

    // The chaos: a replica killed every 2-4 s (in turn, so one is up most of the time), down for
    // up to a second; the database restarted once, 3 s in, while the three outcomes are under way.
    const unsigned seed = std::random_device{}();
    INFO("kill schedule seed " << seed);
    std::atomic<bool> chaos_on{true};
    std::atomic<int> kills{0};
    std::atomic<bool> pg_restarted{false};
    std::thread chaos([&] {
        std::mt19937 r(seed);
        const auto begin = Clock::now();
        auto next_kill = begin + seconds(1 + r() % 2);
        bool victim_a = (r() % 2) == 0;
        while (chaos_on) {
            if (!pg_restarted && Clock::now() > begin + seconds(3)) {
                pg_restarted = pg.Restart();
            }
            if (Clock::now() > next_kill) {
                Orchestrator& victim = replicas.Pick(victim_a);
                victim.Kill();
                ++kills;
                std::this_thread::sleep_for(std::chrono::milliseconds(r() % 1000));
                victim.Start();
                victim_a = !victim_a;
                next_kill = Clock::now() + seconds(2 + r() % 3);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });

    // Site A stops answering (every Marathon connection reset); the idle app and the queue appear.
    a.AddFault(Json{{"api", "marathon"}, {"kind", "reset"}, {"times", -1}});
    exporter.Publish(idle, cluster);
    Outcomes seen;
    const auto deadline = Clock::now() + seconds(60);
    while (Clock::now() < deadline && !(seen.All() && kills >= 3)) {
        seen = Look(replicas, heal, idle, cluster);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    chaos_on = false;
    chaos.join();
    REQUIRE(replicas.Ready());
    seen = Look(replicas, heal, idle, cluster);
    INFO(replicas.Logs());
    CHECK(kills >= 3);
    CHECK(pg_restarted);
    CHECK(seen.healed);
    CHECK(seen.stopped);
    CHECK(seen.scaled);

    // A few more sweeps and checks with everything up: nothing happens a second time.
    std::this_thread::sleep_for(seconds(4));

    // Self-healing: exactly one redeploy (attempt A lost, attempt B running), said once.
    const auto attempts = replicas.Call("GET", "/deployments/" + heal + "/attempts");
    REQUIRE(attempts.status == 200);
    const Json tried = Json::parse(attempts.body)["attempts"];
    INFO(tried.dump(2));
    REQUIRE(tried.size() == 2);
    CHECK(tried[0]["providerId"] == "SITE-A");
    CHECK(tried[0]["outcome"] == "FAILED");
    CHECK(tried[0]["reason"].get<std::string>().find("lost: site SITE-A has not answered") == 0);
    CHECK(tried[1]["providerId"] == "SITE-B");
    CHECK(tried[1]["outcome"] == "SUCCEEDED");
    int redeploys = 0;
    for (const auto& [type, data] : Events(pg.dsn(), heal)) {
        const std::string reason = data.value("statusReason", "");
        redeploys += type == "progress" && reason.find("redeploying on the next suitable site") != std::string::npos;
    }
    CHECK(redeploys == 1);

    // Idle: one notice, then one reclamation at least the notice period later; counted once.
    const auto idle_events = Events(pg.dsn(), idle);
    std::vector<std::string> phases;
    for (const auto& [type, data] : idle_events) {
        if (type == "idle") {
            phases.push_back(data.value("phase", ""));
        }
    }
    CHECK(phases == std::vector<std::string>{"notice", "reclaimed"});
    CHECK(NodeStates(replicas, idle, "app") == std::vector<std::string>{"STOPPED"});
    {
        pqxx::connection conn(pg.dsn());
        pqxx::read_transaction tx(conn);
        const auto row = tx.exec1("SELECT coalesce(sum(reclamations), 0)::int FROM idle_reclaimed");
        CHECK(row[0].as<int>() == 1);
    }

    // Elastic: one decision (1 -> 3, the maximum), the cluster stays at three workers.
    const auto cluster_events = Events(pg.dsn(), cluster);
    std::vector<Json> decisions;
    for (const auto& [type, data] : cluster_events) {
        if (type == "elastic") {
            decisions.push_back(data);
        }
    }
    INFO(Json(decisions).dump(2));
    CHECK(NodeStates(replicas, cluster, "lrms_wn").size() == 3);
    CHECK(replicas.Get(cluster).value_or(Json::object()).value("status", "") == "UPDATE_COMPLETE");
    // Exactly one decision: the update and its decision event are one transaction, so no kill or
    // restart can leave the scale without its event (lifecycle.md, elastic "Durability and replicas").
    REQUIRE(decisions.size() == 1);
    CHECK(decisions[0]["action"] == "scale_out");
    CHECK(decisions[0]["from"] == 1);
    CHECK(decisions[0]["to"] == 3);

    // Site A answers again: what the lost attempt left there is deleted, B keeps the workload.
    CHECK(Holds(a, heal));
    a.ClearFaults();
    const auto clean_by = Clock::now() + seconds(20);
    while (Clock::now() < clean_by && Holds(a, heal)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    CHECK_FALSE(Holds(a, heal));
    CHECK(Holds(b, heal));
    WARN(
        "lifecycle chaos: " << kills << " kills, database restarted " << pg_restarted << ", "
                            << std::chrono::duration_cast<seconds>(Clock::now() - started).count() << " s"
    );
}
