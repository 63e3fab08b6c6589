// bench_admission DSN [RACES] [DEPLOYMENTS] [PENDING] [SITES] [CYCLES]: the admission benchmark
// of issue 21 (bench/admission/run). Three parts, each on the real code:
//  1. races: RACES times, 24 commits of PgWorkflowStore race for the last 8 GPUs of a group
//     quota (the atomic reservation of docs/admission.md); overshoot = GPUs reserved beyond 8;
//  2. fair share: a simulation of its own (simulated time, 8 sites × 8 GPUs) where three groups
//     weighted 2:1:1 keep the sites saturated with DEPLOYMENTS requests of random sizes and
//     durations, admitted by FairShareOrder + AdmissionCycle over decayed usage (DecayedUsage);
//     realised GPU-hours per group while all three have requests waiting;
//  3. scale: one admission cycle (FairShareOrder + AdmissionCycle) over PENDING requests and
//     SITES sites, and one queue-position computation as the place step makes it (FairShareOrder
//     over the at most kMaxWaitingListed requests it competes with).
// The last line is the summary line.
#include <common/uuid.hpp>
#include <orchestrator/store/migrations.hpp>
#include <orchestrator/store/pg_deployment_store.hpp>
#include <orchestrator/store/pg_pool.hpp>
#include <orchestrator/store/pg_workflow_store.hpp>
#include <orchestrator/workflow/admission_cycle.hpp>
#include <orchestrator/workflow/admission_queue.hpp>
#include <orchestrator/workflow/fair_share.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <queue>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace domain = orch::domain;
namespace store = orch::store;
namespace tosca = orch::tosca;
namespace workflow = orch::workflow;
using orch::Json;
using orch::SequentialUuid;
using Clock = std::chrono::system_clock;
using std::chrono::hours;
using std::chrono::milliseconds;

constexpr int kRacers = 24;
constexpr double kLastGpus = 8;
const domain::Owner kBencher{"https://bench-admission/", "bencher"};

std::string NewDeployment(store::DeploymentStore& deployments, const std::string& group) {
    store::NewDeployment n;
    auto& d = n.deployment;
    d.id = SequentialUuid();
    d.created_at = Clock::now();
    d.updated_at = d.created_at;
    d.status = domain::Status::kCreateInProgress;
    d.owner = kBencher;
    d.user_group = group;
    d.template_text = "tosca_definitions_version: tosca_simple_yaml_1_0";
    d.kind = tosca::DeploymentKind::kMarathon;
    if (!deployments.Create(n)) {
        std::fprintf(stderr, "create failed\n");
        std::exit(1);
    }
    return d.id;
}

// The place step's commit admitting one GPU against the group's limit (and the user's).
workflow::Transition AdmitOne(const std::string& group) {
    workflow::Transition t;
    t.status_reason = "placed";
    t.candidate_index = 0;
    t.next = workflow::NextJob{workflow::JobKind::kPoll, Json::object(), hours(1), true};
    workflow::Admission admit;
    workflow::CounterKey key{
        workflow::QuotaScope::kGroup, kBencher.issuer, group, "", "", workflow::QuotaResource::kGpus};
    admit.claims.push_back({key, 1, kLastGpus});
    admit.queued_reason = "queued: waiting in group " + group + " for 1 × GPU";
    admit.retry_delay = hours(1);
    t.admit = admit;
    return t;
}

// One race: kRacers commits for the group's last kLastGpus GPUs; the GPUs reserved beyond them.
double Race(store::DeploymentStore& deployments, workflow::WorkflowStore& wf, int race) {
    const std::string group = "race-" + std::to_string(race);
    for (int i = 0; i < kRacers; ++i) {
        NewDeployment(deployments, group);
    }
    const auto jobs = wf.Claim("bench", kRacers, std::chrono::minutes(1));
    if (!jobs || jobs->size() != static_cast<std::size_t>(kRacers)) {
        std::fprintf(stderr, "claim failed\n");
        std::exit(1);
    }
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (const auto& job : *jobs) {
        threads.emplace_back([&, job] {
            while (!go.load()) {
                std::this_thread::yield();
            }
            (void)wf.Commit(job, "bench", AdmitOne(group));
        });
    }
    go = true;
    for (auto& t : threads) {
        t.join();
    }
    const auto counters = wf.QuotaCounters(kBencher.issuer, {group});
    double reserved = 0;
    for (const auto& c : counters.value()) {
        if (c.key.scope == workflow::QuotaScope::kGroup) {
            reserved += c.reserved + c.in_use;
        }
    }
    return std::max(0.0, reserved - kLastGpus);
}

// This thread's CPU time: on a machine shared with other builds, wall time measures the load; a
// cycle is one thread's computation, so its CPU time is what it costs (both are printed).
double CpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double WallMs(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

double Percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// ---- 2. the fair-share simulation -------------------------------------------------------------

struct SimRequest {
    workflow::WaitingRequest request;
    milliseconds duration{0};
};

struct SimRunning {
    Clock::time_point ends;
    std::size_t site;
    std::size_t group;
    double gpus;
    bool operator>(const SimRunning& o) const { return ends > o.ends; }
};

struct SimResult {
    double shares[3] = {0, 0, 0};
    std::size_t cycles = 0;
    double hours_simulated = 0;
};

SimResult SimulateFairShare(int deployments, std::mt19937_64& rng) {
    const char* names[] = {"a", "b", "c"};
    const double weights[] = {2, 1, 1};
    constexpr std::size_t kSites = 8;
    constexpr double kPerSite = 8;
    constexpr std::size_t kBacklog = 8;  // requests each group keeps waiting: saturation
    const milliseconds half_life = hours(24);
    workflow::FairShareOptions options;
    options.starvation_age = hours(48);
    std::uniform_int_distribution<int> size_pick(0, 6);
    const double sizes[] = {1, 1, 1, 2, 2, 4, 8};
    std::uniform_real_distribution<double> hours_pick(0.5, 12);
    std::uniform_real_distribution<double> overestimate(1.0, 1.5);

    Clock::time_point now{};
    std::vector<workflow::SiteGpus> sites(kSites, workflow::SiteGpus{kPerSite, kPerSite});
    std::priority_queue<SimRunning, std::vector<SimRunning>, std::greater<>> running;
    std::vector<SimRequest> pending[3];
    workflow::ShareVector history[3];
    double held[3] = {0, 0, 0};
    double realised[3] = {0, 0, 0};
    int submitted = 0;
    bool saturated = true;
    SimResult out;
    const auto submit = [&](std::size_t g) {
        SimRequest r;
        r.request.deployment_id = SequentialUuid();
        r.request.group = names[g];
        r.request.queued_at = now;
        r.request.demand.gpus = sizes[size_pick(rng)];
        r.duration =
            std::chrono::duration_cast<milliseconds>(std::chrono::duration<double, std::ratio<3600>>(hours_pick(rng)));
        r.request.estimate = std::chrono::duration_cast<milliseconds>(r.duration * overestimate(rng));
        pending[g].push_back(std::move(r));
        ++submitted;
    };
    while (saturated) {
        for (std::size_t g = 0; g < 3; ++g) {
            while (pending[g].size() < kBacklog && submitted < deployments) {
                submit(g);
            }
        }
        // One admission cycle, on the real ordering and cycle.
        std::vector<workflow::WaitingRequest> waiting;
        std::vector<std::pair<std::size_t, std::size_t>> origin;
        for (std::size_t g = 0; g < 3; ++g) {
            for (std::size_t i = 0; i < pending[g].size(); ++i) {
                waiting.push_back(pending[g][i].request);
                origin.emplace_back(g, i);
            }
        }
        std::map<std::string, workflow::GroupAccount, std::less<>> accounts;
        for (std::size_t g = 0; g < 3; ++g) {
            workflow::ShareVector usage = history[g];
            usage.gpus += held[g];
            accounts[names[g]] = workflow::GroupAccount{weights[g], usage};
        }
        workflow::CycleInput in;
        in.waiting = &waiting;
        in.order =
            workflow::FairShareOrder(waiting, accounts, workflow::ShareVector{kSites * kPerSite, 0, 0}, now, options);
        in.sites = sites;
        in.now = now;
        auto copy = running;
        while (!copy.empty()) {
            in.running.push_back(workflow::RunningGpus{copy.top().site, copy.top().gpus, copy.top().ends});
            copy.pop();
        }
        const auto result = workflow::AdmissionCycle(in);
        ++out.cycles;
        std::vector<std::vector<std::size_t>> taken(3);
        for (const auto& a : result.admitted) {
            const auto [g, i] = origin[a.request];
            const auto& r = pending[g][i];
            sites[a.site].free -= r.request.demand.gpus;
            held[g] += r.request.demand.gpus;
            running.push(SimRunning{now + r.duration, a.site, g, r.request.demand.gpus});
            taken[g].push_back(i);
        }
        for (std::size_t g = 0; g < 3; ++g) {
            std::sort(taken[g].rbegin(), taken[g].rend());
            for (const auto i : taken[g]) {
                pending[g].erase(pending[g].begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        if (running.empty()) {
            break;
        }
        // Advance to the next end: usage accrues (GPU-hours) and decays meanwhile.
        const auto next = running.top().ends;
        const double elapsed_h = std::chrono::duration<double, std::ratio<3600>>(next - now).count();
        for (std::size_t g = 0; g < 3; ++g) {
            history[g] =
                workflow::DecayedUsage(history[g], std::chrono::duration_cast<milliseconds>(next - now), half_life);
            history[g].gpus += held[g] * elapsed_h;
            realised[g] += held[g] * elapsed_h;
        }
        out.hours_simulated += elapsed_h;
        now = next;
        while (!running.empty() && running.top().ends <= now) {
            const auto done = running.top();
            running.pop();
            sites[done.site].free += done.gpus;
            held[done.group] -= done.gpus;
        }
        // Measured while every group still has requests waiting (saturation).
        saturated = submitted < deployments;
    }
    const double total = realised[0] + realised[1] + realised[2];
    for (std::size_t g = 0; g < 3; ++g) {
        out.shares[g] = total > 0 ? 100 * realised[g] / total : 0;
    }
    return out;
}

// ---- 3. scale ----------------------------------------------------------------------------------

struct ScaleResult {
    double cycle_p99_ms = 0;  ///< CPU time
    double cycle_p50_ms = 0;
    double cycle_wall_p99_ms = 0;
    double position_p99_ms = 0;  ///< CPU time
    double position_wall_p99_ms = 0;
    std::size_t admitted = 0;
};

ScaleResult Scale(std::size_t pending, std::size_t site_count, int cycles, std::mt19937_64& rng) {
    const auto now = Clock::now();
    std::uniform_int_distribution<int> group_pick(0, 29);
    std::uniform_int_distribution<int> gpus_pick(1, 8);
    std::uniform_int_distribution<int> minutes_pick(1, 7 * 24 * 60);
    std::uniform_int_distribution<int> capacity_pick(4, 16);
    std::bernoulli_distribution has_free(0.05);
    std::vector<workflow::WaitingRequest> waiting(pending);
    for (std::size_t i = 0; i < pending; ++i) {
        auto& w = waiting[i];
        w.deployment_id = SequentialUuid();
        w.group = "group-" + std::to_string(group_pick(rng));
        w.queued_at = now - std::chrono::minutes(minutes_pick(rng) % (5 * 60));
        w.demand.gpus = gpus_pick(rng);
        w.estimate = std::chrono::minutes(minutes_pick(rng));
    }
    std::map<std::string, workflow::GroupAccount, std::less<>> accounts;
    for (int g = 0; g < 30; ++g) {
        accounts["group-" + std::to_string(g)] = workflow::GroupAccount{1.0 + g % 3, {100.0 * g, 0, 0}};
    }
    workflow::CycleInput base;
    base.now = now;
    double capacity = 0;
    for (std::size_t s = 0; s < site_count; ++s) {
        const double cap = capacity_pick(rng);
        capacity += cap;
        const double free = has_free(rng) ? std::uniform_int_distribution<int>(1, static_cast<int>(cap))(rng) : 0;
        base.sites.push_back({cap, free});
        if (cap - free > 0) {
            base.running.push_back({s, cap - free, now + std::chrono::minutes(minutes_pick(rng))});
        }
    }
    const workflow::ShareVector total{capacity, 0, 0};
    ScaleResult out;
    std::vector<double> cycle_ms;
    std::vector<double> cycle_wall_ms;
    for (int c = 0; c < cycles; ++c) {
        workflow::CycleInput in = base;  // the copy is what a cycle reads from the store: not timed
        in.waiting = &waiting;
        const auto start = std::chrono::steady_clock::now();
        const double cpu = CpuMs();
        in.order = workflow::FairShareOrder(waiting, accounts, total, now);
        const auto result = workflow::AdmissionCycle(in);
        cycle_ms.push_back(CpuMs() - cpu);
        cycle_wall_ms.push_back(WallMs(start));
        out.admitted = result.admitted.size();
    }
    // The place step's position: FairShareOrder over itself and the listed competitors.
    const std::size_t listed = std::min<std::size_t>(pending, workflow::kMaxWaitingListed);
    const std::vector<workflow::WaitingRequest> competitors(
        waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(listed)
    );
    std::vector<double> position_ms;
    std::vector<double> position_wall_ms;
    for (int q = 0; q < cycles * 4; ++q) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu = CpuMs();
        const auto order = workflow::FairShareOrder(competitors, accounts, total, now);
        const auto at = std::find(order.begin(), order.end(), static_cast<std::size_t>(q) % listed);
        position_ms.push_back(CpuMs() - cpu);
        position_wall_ms.push_back(WallMs(start));
        if (at == order.end()) {
            std::exit(1);
        }
    }
    out.cycle_p99_ms = Percentile(cycle_ms, 0.99);
    out.cycle_p50_ms = Percentile(cycle_ms, 0.5);
    out.position_p99_ms = Percentile(position_ms, 0.99);
    out.cycle_wall_p99_ms = Percentile(cycle_wall_ms, 0.99);
    out.position_wall_p99_ms = Percentile(position_wall_ms, 0.99);
    return out;
}

int Arg(int argc, char** argv, int i, int fallback) {
    return argc > i ? std::atoi(argv[i]) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_admission DSN [RACES] [DEPLOYMENTS] [PENDING] [SITES] [CYCLES]\n");
        return 2;
    }
    const int races = Arg(argc, argv, 2, 100);
    const int deployments = Arg(argc, argv, 3, 10'000);
    const auto pending = static_cast<std::size_t>(Arg(argc, argv, 4, 100'000));
    const auto site_count = static_cast<std::size_t>(Arg(argc, argv, 5, 10'000));
    const int cycles = Arg(argc, argv, 6, 50);
    std::mt19937_64 rng(21);

    double overshoot = 0;
    if (races > 0) {
        store::PgPool pool{store::PgPoolOptions{.dsn = argv[1], .size = 8}};
        if (!store::ApplyMigrations(pool)) {
            std::fprintf(stderr, "migrations failed\n");
            return 1;
        }
        store::PgDeploymentStore deployments_store{pool};
        store::PgWorkflowStore workflow_store{pool};
        for (int r = 0; r < races; ++r) {
            overshoot += Race(deployments_store, workflow_store, r);
        }
    }
    std::printf(
        "races: %d × %d commits for the last %.0f GPUs: %.0f GPUs over\n", races, kRacers, kLastGpus, overshoot
    );

    const auto sim = SimulateFairShare(deployments, rng);
    std::printf(
        "fair share: %d deployments, 64 GPUs, %.0f simulated hours, %zu cycles: %.1f/%.1f/%.1f%% of GPU-hours\n",
        deployments,
        sim.hours_simulated,
        sim.cycles,
        sim.shares[0],
        sim.shares[1],
        sim.shares[2]
    );
    const auto scale = Scale(pending, site_count, cycles, rng);
    std::printf(
        "scale (CPU ms of the thread; wall ms on this machine in brackets): cycle p50 %.1f p99 %.1f [%.1f] (%zu "
        "admitted per cycle); position over %d listed p99 %.2f [%.2f]\n",
        scale.cycle_p50_ms,
        scale.cycle_p99_ms,
        scale.cycle_wall_p99_ms,
        scale.admitted,
        workflow::kMaxWaitingListed,
        scale.position_p99_ms,
        scale.position_wall_p99_ms
    );
    // The summary line's format is the issue's, fixed; the line before it says which clock it uses.
    const char* clock = std::getenv("BENCH_ADMISSION_CLOCK");  // NOLINT(concurrency-mt-unsafe): the racers are joined
    const bool wall = clock != nullptr && std::string_view(clock) == "wall";
    std::printf(
        "summary times: %s\n",
        wall ? "wall time on this machine (BENCH_ADMISSION_CLOCK=wall)"
             : "CPU time of the bench thread (BENCH_ADMISSION_CLOCK=cpu)"
    );
    std::printf(
        "admission: overshoot %.0f in %d races; shares %.0f/%.0f/%.0f%% (target 50/25/25); cycle p99 %.0f ms at %zu "
        "pending "
        "x %zu sites; position p99 %.0f ms\n",
        overshoot,
        races,
        sim.shares[0],
        sim.shares[1],
        sim.shares[2],
        wall ? scale.cycle_wall_p99_ms : scale.cycle_p99_ms,
        pending,
        site_count,
        wall ? scale.position_wall_p99_ms : scale.position_p99_ms
    );
    return 0;
}
