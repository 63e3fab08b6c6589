#include "sim/chronos_sim.hpp"

#include "iso8601.hpp"
#include "sim/sim_clock.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

namespace orch::sim {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

enum class RunState { kIdle, kQueued, kRunning };

struct ChronosJob {
    std::string name;
    Json definition;
    std::vector<std::string> parents;
    long repetitions_left = 0;
    double next_run = kNever;
    double period = 0;
    int success_count = 0;
    int error_count = 0;
    int errors_since_success = 0;
    double last_success = -1;
    double last_error = -1;
    double triggered_at = -1;
    RunState state = RunState::kIdle;
    double run_until = 0;
    int attempt = 0;
    std::size_t agent = 0;
    MesosDemand demand;

    std::string Env(const std::string& key) const {
        for (const auto& e : definition.value("environmentVariables", Json::array())) {
            if (e.value("name", "") == key) {
                return e.value("value", "");
            }
        }
        return "";
    }
    std::string Status() const {
        if (last_success < 0 && last_error < 0) {
            return "fresh";
        }
        return last_success >= last_error ? "success" : "failure";
    }
    std::string StateName() const {
        switch (state) {
            case RunState::kQueued:
                return "queued";
            case RunState::kRunning:
                return "1 running";
            default:
                return "idle";
        }
    }
};

std::string Lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

SimResponse ChronosError(int status, const std::string& message) {
    return SimResponse::Text(status, message);
}

// Chronos constraints ([attr, EQUALS|LIKE|UNLIKE, value]) in Marathon's vocabulary for placement.
Json ToMarathonConstraints(const Json& constraints) {
    Json out = Json::array();
    for (const auto& c : constraints) {
        if (c.is_array() && c.size() == 3) {
            const std::string op = c[1].get<std::string>();
            out.push_back({c[0], op == "EQUALS" ? "CLUSTER" : op, c[2]});
        }
    }
    return out;
}

}  // namespace

struct ChronosSim::State {
    const SimConfig& config;
    MesosCluster& cluster;
    std::map<std::string, ChronosJob> jobs;

    State(const SimConfig& c, MesosCluster& m) : config(c), cluster(m) {}

    Json JobJson(const ChronosJob& job) const {
        Json out = job.definition;
        out["successCount"] = job.success_count;
        out["errorCount"] = job.error_count;
        out["errorsSinceLastSuccess"] = job.errors_since_success;
        out["lastSuccess"] = job.last_success < 0 ? "" : FormatIsoTime(job.last_success);
        out["lastError"] = job.last_error < 0 ? "" : FormatIsoTime(job.last_error);
        return out;
    }

    SimResponse Upsert(const SimRequest& request, bool dependent, double now);
    SimResponse Delete(const std::string& name);
    void Finish(ChronosJob& job, double now);
    void Launch(ChronosJob& job, double now, const std::set<std::string>& exhausted);
};

SimResponse ChronosSim::State::Upsert(const SimRequest& request, bool dependent, double now) {
    auto body = ParseJson(request.body);
    if (!body) {
        return ChronosError(400, "Invalid JSON: " + body.error().message);
    }
    if (auto problem = ValidateChronosJob(*body, dependent); !problem.empty()) {
        return ChronosError(400, problem);
    }
    Json definition = *body;
    if (!config.chronos_gpu_support) {
        definition.erase("gpus");  // upstream Chronos has no such field and drops it
    }
    const std::string name = definition["name"].get<std::string>();
    for (const auto& parent : definition.value("parents", Json::array())) {
        if (jobs.count(parent.get<std::string>()) == 0) {
            return ChronosError(400, "Parent job '" + parent.get<std::string>() + "' not found");
        }
    }
    if (jobs.count(name) == 0 && jobs.size() >= config.max_objects) {
        return ChronosError(503, "site-sim object limit reached");
    }
    ChronosJob& job = jobs[name];
    job.name = name;
    job.definition = definition;
    job.parents = definition.value("parents", std::vector<std::string>());
    job.next_run = kNever;
    if (!dependent) {
        const auto schedule = ParseIsoSchedule(definition["schedule"].get<std::string>());
        job.repetitions_left = schedule->repetitions;
        job.period = schedule->period;
        job.next_run = schedule->start.value_or(now);
    }
    return SimResponse::Empty(204);
}

SimResponse ChronosSim::State::Delete(const std::string& name) {
    const auto it = jobs.find(name);
    if (it == jobs.end()) {
        return ChronosError(400, "Job '" + name + "' not found");
    }
    if (it->second.state == RunState::kRunning) {
        cluster.Release(it->second.agent, it->second.demand);
    }
    jobs.erase(it);
    // Children lose the parent; one left without parents never runs again (as in Chronos).
    for (auto& [child_name, child] : jobs) {
        child.parents.erase(std::remove(child.parents.begin(), child.parents.end(), name), child.parents.end());
    }
    return SimResponse::Empty(204);
}

void ChronosSim::State::Launch(ChronosJob& job, double now, const std::set<std::string>& exhausted) {
    MesosDemand demand;
    demand.cpus = job.definition.value("cpus", 0.1);
    demand.mem_mb = job.definition.value("mem", 128.0);
    demand.disk_mb = job.definition.value("disk", 256.0);
    demand.gpus = static_cast<int>(job.definition.value("gpus", 0.0));
    const auto placement = cluster.Place(
        demand, ToMarathonConstraints(job.definition.value("constraints", Json::array())), false, exhausted
    );
    if (!placement.agent) {
        return;  // stays queued until an offer fits
    }
    job.agent = *placement.agent;
    job.demand = demand;
    job.state = RunState::kRunning;
    const std::string seconds = job.Env("SIM_RUN_SECONDS");
    job.run_until = now + (seconds.empty() ? config.timing.job_run : std::atof(seconds.c_str()));
}

void ChronosSim::State::Finish(ChronosJob& job, double now) {
    cluster.Release(job.agent, job.demand);
    const std::string exit_code = job.Env("SIM_EXIT_CODE");
    const bool failed = !exit_code.empty() && exit_code != "0";
    if (failed) {
        if (job.attempt < job.definition.value("retries", 2)) {
            ++job.attempt;
            job.state = RunState::kQueued;
            return;
        }
        ++job.error_count;
        ++job.errors_since_success;
        job.last_error = now;
        job.state = RunState::kIdle;
        return;
    }
    ++job.success_count;
    job.errors_since_success = 0;
    job.last_success = now;
    job.state = RunState::kIdle;
    for (auto& [child_name, child] : jobs) {
        if (child.parents.empty() || child.state != RunState::kIdle ||
            std::find(child.parents.begin(), child.parents.end(), job.name) == child.parents.end()) {
            continue;
        }
        const bool all_done =
            std::all_of(child.parents.begin(), child.parents.end(), [&, &waiting = child](const std::string& p) {
                const auto parent = jobs.find(p);
                return parent != jobs.end() && parent->second.last_success > waiting.triggered_at;
            });
        if (all_done) {
            child.triggered_at = now;
            child.attempt = 0;
            child.state = RunState::kQueued;
        }
    }
}

void ChronosSim::Advance(double now, const std::set<std::string>& exhausted) {
    auto& s = *state_;
    for (auto& [name, job] : s.jobs) {
        const bool disabled = job.definition.value("disabled", false);
        if (!disabled && job.state == RunState::kIdle && job.repetitions_left != 0 && now >= job.next_run) {
            job.state = RunState::kQueued;
            job.attempt = 0;
            if (job.repetitions_left > 0) {
                --job.repetitions_left;
            }
            // Missed periods are not replayed: the next run is the first future one.
            if (job.period > 0) {
                job.next_run += job.period * (1 + std::floor((now - job.next_run) / job.period));
            } else {
                job.next_run = kNever;
            }
        }
    }
    for (auto& [name, job] : s.jobs) {
        if (job.state == RunState::kRunning && now >= job.run_until) {
            s.Finish(job, now);
        }
    }
    for (auto& [name, job] : s.jobs) {
        if (job.state == RunState::kQueued) {
            s.Launch(job, now, exhausted);
        }
    }
}

ChronosSim::ChronosSim(const SimConfig& config, MesosCluster& cluster)
    : state_(std::make_unique<State>(config, cluster)) {}

ChronosSim::~ChronosSim() = default;

SimResponse ChronosSim::Handle(const SimRequest& request, double now) {
    auto& s = *state_;
    std::string path = request.path;
    if (path.rfind("/v1/", 0) == 0) {
        path = path.substr(3);  // Chronos serves the API with and without the /v1 prefix
    }
    const std::string& method = request.method;
    if (method == "POST" && (path == "/scheduler/iso8601" || path == "/scheduler/dependency")) {
        return s.Upsert(request, path == "/scheduler/dependency", now);
    }
    if (method == "GET" && (path == "/scheduler/jobs" || path == "/scheduler/jobs/search")) {
        const std::string needle = Lower(request.Query("name").value_or(""));
        Json out = Json::array();
        for (const auto& [name, job] : s.jobs) {
            if (Lower(name).find(needle) != std::string::npos) {
                out.push_back(s.JobJson(job));
            }
        }
        return SimResponse::JsonBody(200, out);
    }
    if (method == "GET" && path == "/scheduler/jobs/summary") {
        Json jobs = Json::array();
        for (const auto& [name, job] : s.jobs) {
            jobs.push_back({
                {"name", name},
                {"status", job.Status()},
                {"state", job.StateName()},
                {"schedule", job.definition.value("schedule", "")},
                {"parents", job.parents},
                {"disabled", job.definition.value("disabled", false)},
            });
        }
        return SimResponse::JsonBody(200, {{"jobs", jobs}});
    }
    if (method == "GET" && path == "/scheduler/graph/csv") {
        std::string csv;
        for (const auto& [name, job] : s.jobs) {
            csv += "node," + name + "," + job.Status() + "," + job.StateName() + "\n";
            for (const auto& parent : job.parents) {
                csv += "link," + parent + "," + name + "\n";
            }
        }
        return SimResponse::Text(200, csv);
    }
    const std::string job_prefix = "/scheduler/job/";
    if (path.rfind(job_prefix, 0) == 0) {
        std::string name = path.substr(job_prefix.size());
        const bool mark_success = name.rfind("success/", 0) == 0;
        if (mark_success) {
            name = name.substr(8);
        }
        const auto it = s.jobs.find(name);
        if (method == "DELETE") {
            return s.Delete(name);
        }
        if (method != "PUT") {
            return ChronosError(405, "Method Not Allowed");
        }
        if (it == s.jobs.end()) {
            return ChronosError(400, "Job '" + name + "' not found");
        }
        if (mark_success) {
            it->second.last_success = now;
            ++it->second.success_count;
        } else if (it->second.state == RunState::kIdle) {
            it->second.state = RunState::kQueued;
            it->second.attempt = 0;
        }
        return SimResponse::Empty(204);
    }
    const std::string kill_prefix = "/scheduler/task/kill/";
    if (method == "DELETE" && path.rfind(kill_prefix, 0) == 0) {
        const auto it = s.jobs.find(path.substr(kill_prefix.size()));
        if (it == s.jobs.end()) {
            return ChronosError(400, "Job '" + path.substr(kill_prefix.size()) + "' not found");
        }
        if (it->second.state == RunState::kRunning) {
            s.cluster.Release(it->second.agent, it->second.demand);
        }
        it->second.state = RunState::kIdle;
        return SimResponse::Empty(204);
    }
    return ChronosError(404, "Not Found: " + request.path + " is not part of the simulated Chronos API");
}

Json ChronosSim::Objects() const {
    Json jobs = Json::array();
    for (const auto& [name, job] : state_->jobs) {
        jobs.push_back({{"name", name}, {"status", job.Status()}, {"state", job.StateName()}});
    }
    return {{"jobs", jobs}};
}

}  // namespace orch::sim
