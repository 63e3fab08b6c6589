// A real Prometheus (Debian package, started by scripts/prometheus/start) scraping a fixture
// exporter that publishes DCGM, kube-state-metrics, Mesos and blackbox metric names. Without
// the prometheus binary this test fails: scripts/install-deps provides it.
#include <common/uuid.hpp>
#include <monitoring/gpu_utilisation.hpp>
#include <monitoring/prometheus_feed.hpp>

#include <catch2/catch.hpp>
#include <test_support/fixture_http_server.hpp>
#include <test_support/test_env.hpp>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

namespace orch::monitoring {
namespace {

constexpr const char* kRecas = "RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b";
constexpr const char* kPadova = "INFN-PADOVA_f164876a-4d52-57c7-9a86-84c8d4a8a896";

// Exposition text: CESNET has 8 allocatable GPUs, 5 requested by running/pending pods (a
// finished pod's request does not count) → 3 free; CNAF's Mesos has 2 free; RECAS has DCGM GPUs.
const char* kMetrics = R"(# TYPE probe_success gauge
probe_success{job="paas-site-probe",site="RECAS-BARI",service_id="RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b"} 1
probe_success{job="paas-site-probe",site="INFN-PADOVA",service_id="INFN-PADOVA_f164876a-4d52-57c7-9a86-84c8d4a8a896"} 0
# TYPE probe_duration_seconds gauge
probe_duration_seconds{job="paas-site-probe",site="RECAS-BARI",service_id="RECAS-BARI_e61c2e9a-ccfc-562d-9ae8-6ddfadf3dc4b"} 0.84
# TYPE kube_node_status_allocatable gauge
kube_node_status_allocatable{node="n1",resource="nvidia_com_gpu",unit="integer",site="CESNET-MCC"} 4
kube_node_status_allocatable{node="n2",resource="nvidia_com_gpu",unit="integer",site="CESNET-MCC"} 4
kube_node_status_allocatable{node="n1",resource="cpu",unit="core",site="CESNET-MCC"} 64
# TYPE kube_pod_container_resource_requests gauge
kube_pod_container_resource_requests{namespace="ml",pod="train-1",container="c",node="n1",resource="nvidia_com_gpu",unit="integer",site="CESNET-MCC"} 2
kube_pod_container_resource_requests{namespace="ml",pod="train-2",container="c",node="n2",resource="nvidia_com_gpu",unit="integer",site="CESNET-MCC"} 3
kube_pod_container_resource_requests{namespace="ml",pod="done-1",container="c",node="n2",resource="nvidia_com_gpu",unit="integer",site="CESNET-MCC"} 1
# TYPE kube_pod_status_phase gauge
kube_pod_status_phase{namespace="ml",pod="train-1",phase="Running",site="CESNET-MCC"} 1
kube_pod_status_phase{namespace="ml",pod="train-2",phase="Pending",site="CESNET-MCC"} 1
kube_pod_status_phase{namespace="ml",pod="done-1",phase="Succeeded",site="CESNET-MCC"} 1
kube_pod_status_phase{namespace="ml",pod="done-1",phase="Running",site="CESNET-MCC"} 0
# TYPE mesos_master_gpus gauge
mesos_master_gpus{type="total",hostname="mesos.cnaf.example.org",site="INFN-CNAF"} 8
mesos_master_gpus{type="used",hostname="mesos.cnaf.example.org",site="INFN-CNAF"} 6
mesos_master_gpus{type="free",hostname="mesos.cnaf.example.org",site="INFN-CNAF"} 2
# TYPE mesos_master_cpus gauge
mesos_master_cpus{type="free",hostname="mesos.cnaf.example.org",site="INFN-CNAF"} 136
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",device="nvidia0",modelName="Tesla T4",Hostname="g1",namespace="",pod="",container="",site="RECAS-BARI"} 0
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",device="nvidia1",modelName="Tesla T4",Hostname="g1",namespace="ml",pod="job-a",container="c",site="RECAS-BARI"} 87
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-c",device="nvidia0",modelName="Tesla V100-PCIE-32GB",Hostname="g2",namespace="",pod="",container="",site="RECAS-BARI"} 0
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-d",device="nvidia1",modelName="Tesla V100-PCIE-32GB",Hostname="g2",namespace="",pod="",container="",site="RECAS-BARI"} 3
)";

// Starts Prometheus through the project script and stops it (by PID, through the script) at the end.
class RealPrometheus {
   public:
    explicit RealPrometheus(const std::string& target)
        : dir_(test::BinaryDir() + "/prometheus-test-" + RandomUuid().substr(0, 8)) {
        const std::string command = test::SourceDir() + "/scripts/prometheus/start " + dir_ + " " + target + " 1s";
        started_ = std::system(command.c_str()) == 0;  // NOLINT(concurrency-mt-unsafe): test setup
        if (started_) {
            url_ = test::ReadFile(dir_ + "/url");
            url_.erase(url_.find_last_not_of("\r\n") + 1);
        }
    }
    ~RealPrometheus() {
        const std::string command = test::SourceDir() + "/scripts/prometheus/stop " + dir_;
        [[maybe_unused]] const int rc = std::system(command.c_str());  // NOLINT(concurrency-mt-unsafe)
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    RealPrometheus(const RealPrometheus&) = delete;
    RealPrometheus& operator=(const RealPrometheus&) = delete;

    bool started() const { return started_; }
    const std::string& url() const { return url_; }

   private:
    std::string dir_;
    std::string url_;
    bool started_ = false;
};

// Every signal the test reads has arrived. The feed asks one query per signal, each evaluated at
// its own instant: right after Prometheus's first scrape one query can see the samples and the
// next not yet (seen under ASan: response time known, availability not).
bool Complete(const Snapshot& snapshot) {
    const auto* cesnet = snapshot.FindProvider("CESNET-MCC");
    const auto* recas = snapshot.FindProvider("RECAS-BARI");
    const auto* padova = snapshot.FindProvider("INFN-PADOVA");
    const auto* cnaf = snapshot.FindProvider("INFN-CNAF");
    return cesnet != nullptr && cesnet->capacity.free_gpus && recas != nullptr &&
           !recas->capacity.free_gpus_by_model.empty() && recas->FindService(kRecas) != nullptr &&
           recas->FindService(kRecas)->response_ms && recas->FindService(kRecas)->up && padova != nullptr &&
           padova->FindService(kPadova) != nullptr && padova->FindService(kPadova)->up && cnaf != nullptr &&
           cnaf->capacity.free_gpus && cnaf->capacity.free_cpus;
}

TEST_CASE("Prometheus feed against a real Prometheus scraping a fixture exporter", "[monitoring][prometheus]") {
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Route("GET", "/metrics", [](const test::FixtureRequest&) {
        return test::FixtureResponse{200, "text/plain; version=0.0.4", kMetrics};
    });
    test::FixtureHttpServer exporter(routes);
    RealPrometheus prometheus("127.0.0.1:" + std::to_string(exporter.port()));
    REQUIRE(prometheus.started());  // fails, not skips, when the prometheus binary is missing

    auto http = std::move(http::MakeClient({})).value();
    PrometheusOptions options;
    options.url = prometheus.url();
    options.ttl = std::chrono::milliseconds(0);
    const SystemClock clock;
    PrometheusFeed feed(*http, options, clock);
    std::shared_ptr<const Snapshot> snapshot;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        snapshot = feed.Collect({});
    } while (!Complete(*snapshot) && std::chrono::steady_clock::now() < deadline);
    REQUIRE(Complete(*snapshot));
    CHECK(snapshot->notes.empty());

    const auto* cesnet = snapshot->FindProvider("CESNET-MCC");
    CHECK(cesnet->capacity.free_gpus == 3);
    const auto* recas = snapshot->FindProvider("RECAS-BARI");
    CHECK(recas->capacity.free_gpus_by_model.at("Tesla T4") == 1);
    CHECK(recas->capacity.free_gpus_by_model.at("Tesla V100-PCIE-32GB") == 2);
    CHECK(recas->capacity.gpus_by_model.at("Tesla T4") == 2);
    CHECK(recas->capacity.free_gpus == 3);
    CHECK(recas->FindService(kRecas)->up == true);
    CHECK(recas->FindService(kRecas)->response_ms == Approx(840));
    CHECK(snapshot->FindProvider("INFN-PADOVA")->FindService(kPadova)->up == false);
    CHECK(snapshot->FindProvider("INFN-CNAF")->capacity.free_gpus == 2);
    CHECK(snapshot->FindProvider("INFN-CNAF")->capacity.free_cpus == 136);

    // A query Prometheus rejects is a note; the other signals still arrive.
    options.queries.gpu_inventory = "count by (site, (modelName)";
    auto partial = PrometheusFeed(*http, options, SystemClock()).Collect({});
    REQUIRE(partial->notes.size() == 1);
    CHECK_THAT(partial->notes[0], Catch::Contains("bad_data"));
    CHECK(partial->FindProvider("CESNET-MCC")->capacity.free_gpus == 3);
}

// Idle reclamation's reader against the real query engine: the series of a deployment's
// Kubernetes namespace, or carrying its id label, give the highest utilisation over the window;
// a deployment without series is "nothing known". The exposition changes while Prometheus scrapes.
TEST_CASE("GPU utilisation of a deployment from DCGM series in a real Prometheus", "[monitoring][prometheus][idle]") {
    std::string exposition;
    std::mutex mutex;
    const auto set = [&](const std::string& busy_value) {
        const std::lock_guard lock(mutex);
        exposition =
            "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",modelName=\"Tesla T4\",Hostname=\"g1\","
            "namespace=\"orch-idle\",pod=\"nb-0\",container=\"c\"} 1\n"
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\",modelName=\"Tesla T4\",Hostname=\"g1\","
            "namespace=\"orch-idle\",pod=\"nb-0\",container=\"c\"} 2\n"
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-c\",modelName=\"Tesla V100-PCIE-32GB\",Hostname=\"vm1\","
            "orchestrator_deployment=\"11111111-2222-4333-8444-555555555555\"} " +
            busy_value + "\n";
    };
    set("93");
    auto routes = std::make_shared<test::FixtureRoutes>();
    routes->Route("GET", "/metrics", [&](const test::FixtureRequest&) {
        const std::lock_guard lock(mutex);
        return test::FixtureResponse{200, "text/plain; version=0.0.4", exposition};
    });
    test::FixtureHttpServer exporter(routes);
    RealPrometheus prometheus("127.0.0.1:" + std::to_string(exporter.port()));
    REQUIRE(prometheus.started());

    auto http = std::move(http::MakeClient({})).value();
    PrometheusClient client(*http, prometheus.url(), std::chrono::milliseconds(2000));
    GpuUtilisationReader reader(client, {});
    const GpuWorkload kube{"orch-idle", "aaaaaaaa-0000-4000-8000-000000000000"};
    const GpuWorkload vm{"", "11111111-2222-4333-8444-555555555555"};
    const GpuWorkload absent{"orch-absent", "bbbbbbbb-0000-4000-8000-000000000000"};
    const auto window = std::chrono::seconds(2);
    std::optional<double> kube_value;
    std::optional<double> vm_value;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while ((!kube_value || !vm_value) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        kube_value = reader.MaxUtilisation(kube, window).value_or(std::nullopt);
        vm_value = reader.MaxUtilisation(vm, window).value_or(std::nullopt);
    }
    REQUIRE(kube_value);
    CHECK(*kube_value == Approx(2));  // the busier of the namespace's two GPUs
    REQUIRE(vm_value);
    CHECK(*vm_value == Approx(93));
    auto none = reader.MaxUtilisation(absent, window);
    REQUIRE(none);
    CHECK_FALSE(none->has_value());

    // The VM's GPU goes idle: once the busy sample has left the window, the maximum falls.
    set("0");
    const auto settle = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        vm_value = reader.MaxUtilisation(vm, window).value_or(std::nullopt);
    } while ((!vm_value || *vm_value > 0) && std::chrono::steady_clock::now() < settle);
    REQUIRE(vm_value);
    CHECK(*vm_value == Approx(0));
}

}  // namespace
}  // namespace orch::monitoring
