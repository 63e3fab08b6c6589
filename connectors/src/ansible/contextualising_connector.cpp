#include "connectors/contextualising_connector.hpp"

#include "connectors/workload.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <thread>

namespace orch::connectors {

/// One configuration started by Poll: what it has done so far, and how it ended.
struct ContextualisingConnector::Run {
    std::mutex mutex;
    std::condition_variable moved;                          // a node started, or the run ended
    std::string log;                                        // the notes, then a line per node started (guarded)
    std::string latest;                                     // the latest progress message (guarded)
    std::size_t nodes_started = 0;                          // (guarded)
    std::optional<ConnectorResult<ContextOutcome>> result;  // set once, when it ended (guarded)
    ContextPlan plan;     // hosts and account, for the SSH access published once configured
    std::jthread thread;  // last: joined (stop requested first) before the rest goes away
};

namespace {

constexpr std::size_t kMaxProgressLog = 64 * 1024;  // "== configuring node X" lines of one run

int SshPort(const SiteTarget& target, int fallback) {
    const auto it = target.options.find("ssh_port");
    if (it != target.options.end() && it->is_number_integer()) {
        const auto port = it->get<long long>();
        return port > 0 && port <= 65535 ? static_cast<int>(port) : fallback;
    }
    return fallback;
}

// Keeps the head and the tail of a long log.
std::string Bounded(std::string text, std::size_t cap) {
    if (text.size() <= cap) {
        return text;
    }
    const std::size_t half = cap / 2;
    return text.substr(0, half) + "\n[... " + std::to_string(text.size() - 2 * half) + " bytes left out ...]\n" +
           text.substr(text.size() - half);
}

bool NeedsContextualisation(const tosca::DeploymentSpec* spec) {
    if (spec == nullptr) {
        return false;
    }
    auto steps = BuildContextSteps(*spec);
    // A malformed plan is reported by Poll with its reason; Create still needs the key for it.
    return std::holds_alternative<Failure>(steps) || !std::get<std::vector<ContextStep>>(steps).empty();
}

// IM publishes each VM's SSH access on its endpoint capability, and templates read it
// (`get_attribute: [front_end, endpoint, credential, 0]`). Here the access is the account the
// deployment's key logs into; the private key never leaves the orchestrator, so the credential
// names the public key the servers accept.
void PublishSshAccess(Observation& observation, const ContextPlan& plan, const std::string& public_key) {
    for (const auto& host : plan.hosts) {
        Json& node = observation.attributes[host.node];
        if (!node.is_object()) {
            node = Json::object();
        }
        Json& endpoint = node["endpoint"];
        if (!endpoint.is_object()) {
            endpoint = Json::object();
        }
        Json& credentials = endpoint["credential"];
        if (!credentials.is_array()) {
            credentials = Json::array();
        }
        credentials.push_back(
            {{"protocol", "ssh"}, {"user", plan.ssh_user}, {"token_type", "public_key"}, {"token", public_key}}
        );
    }
}

// What each configured server told Ansible about itself, as its node's attributes: per fact, a
// list over the node's instances by index (as public_address), null where a server gave none,
// and the instance's own value on the instance.
void PublishFacts(Observation& observation, const std::vector<HostFacts>& facts) {
    std::map<std::string, int> instances;  // per node: how many, from the hosts configured
    for (const auto& host : facts) {
        instances[host.node] = std::max(instances[host.node], host.index + 1);
    }
    for (const auto& host : facts) {
        Json& node = observation.attributes[host.node];
        if (!node.is_object()) {
            node = Json::object();
        }
        for (const auto& [name, value] : host.facts.items()) {
            Json& list = node[name];
            if (!list.is_array()) {
                list = Json::array();
            }
            while (list.size() < static_cast<std::size_t>(instances[host.node])) {
                list.push_back(nullptr);
            }
            list[static_cast<std::size_t>(host.index)] = value;
        }
        for (auto& instance : observation.instances) {
            if (instance.node == host.node && instance.index == host.index) {
                for (const auto& [name, value] : host.facts.items()) {
                    instance.attributes[name] = value;
                }
            }
        }
    }
}

}  // namespace

std::string ContextId(const std::string& deployment_id, const std::string& service_id) {
    std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a
    for (const char c : service_id) {
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return deployment_id + "-" + hex;
}

ContextualisingConnector::ContextualisingConnector(
    std::unique_ptr<Connector> inner, Contextualiser& contextualiser, ContextualisingOptions options
)
    : inner_(std::move(inner)), contextualiser_(contextualiser), options_(std::move(options)) {}

ConnectorResult<DeployRequest> ContextualisingConnector::WithKey(const DeployRequest& request) {
    DeployRequest out = request;
    if (!NeedsContextualisation(request.spec)) {
        return out;
    }
    auto key = contextualiser_.PublicKey(ContextId(request.deployment_id, request.target.service_id));
    if (auto* failure = std::get_if<Failure>(&key)) {
        return *failure;
    }
    out.ssh_public_key = std::get<std::string>(key);
    out.ssh_user = OptionString(request.target, "ssh_user", options_.ssh_user);
    return out;
}

ConnectorResult<Handle> ContextualisingConnector::Create(const DeployRequest& request) {
    auto keyed = WithKey(request);
    if (auto* failure = std::get_if<Failure>(&keyed)) {
        return *failure;
    }
    return inner_->Create(std::get<DeployRequest>(keyed));
}

ConnectorResult<Handle> ContextualisingConnector::Update(const Handle& handle, const DeployRequest& request) {
    auto keyed = WithKey(request);
    if (auto* failure = std::get_if<Failure>(&keyed)) {
        return *failure;
    }
    return inner_->Update(handle, std::get<DeployRequest>(keyed));
}

ConnectorResult<Observation> ContextualisingConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    auto observed = inner_->Poll(handle, spec);
    auto* observation = std::get_if<Observation>(&observed);
    const std::string context_id = ContextId(handle.deployment_id, handle.target.service_id);
    if (observation != nullptr && observation->phase == Phase::kGone) {
        EndRun(context_id);
        contextualiser_.Forget(context_id);
    }
    if (observation == nullptr) {
        return observed;
    }
    if (auto run = FindRun(context_id)) {
        if (!EndedForOtherServers(*run, *observation, handle)) {
            return Progress(std::move(*observation), std::move(run), handle);
        }
        EndRun(context_id);  // e.g. a health check's run, then a scale: configure what is there now
    }
    if (observation->phase != Phase::kReady) {
        return observed;
    }
    auto steps = BuildContextSteps(spec);
    if (auto* failure = std::get_if<Failure>(&steps)) {
        observation->phase = Phase::kFailed;
        observation->failure = failure->kind;
        observation->reason = failure->message;
        return observed;
    }
    if (std::get<std::vector<ContextStep>>(steps).empty()) {
        return observed;
    }
    auto hosts = ContextHosts(*observation, SshPort(handle.target, options_.ssh_port));
    if (auto* failure = std::get_if<Failure>(&hosts)) {
        observation->phase = Phase::kInProgress;  // addresses come a little after ACTIVE
        observation->reason = failure->message;
        return observed;
    }
    ContextPlan plan;
    plan.deployment_id = context_id;
    plan.ssh_user = OptionString(handle.target, "ssh_user", options_.ssh_user);
    plan.hosts = std::move(std::get<std::vector<ContextHost>>(hosts));
    plan.steps = std::move(std::get<std::vector<ContextStep>>(steps));
    // Values reading other nodes' addresses (a front end's IP) are known only now.
    std::string notes;
    for (const auto& note : EvaluateStepValues(spec, *observation, plan.steps)) {
        notes += "== " + note + "\n";
    }
    return Progress(std::move(*observation), StartRun(handle, std::move(plan), std::move(notes)), handle);
}

ConnectorResult<Observation> ContextualisingConnector::Progress(
    Observation observation, std::shared_ptr<Run> run, const Handle& handle
) {
    std::unique_lock lock(run->mutex);
    const std::size_t started = run->nodes_started;
    // Back at once when the run ends or starts another node: each node gets its own message.
    run->moved.wait_for(lock, options_.progress_wait, [&] {
        return run->result.has_value() || run->nodes_started != started;
    });
    if (!run->result) {
        if (observation.phase != Phase::kReady) {
            return observation;  // the servers changed under the run (a DELETE stops it)
        }
        observation.phase = Phase::kInProgress;
        observation.reason = "configuring the servers";
        if (!run->latest.empty()) {
            observation.site_message = run->latest;
        }
        observation.log += run->log;
        return observation;
    }
    lock.unlock();
    EndRun(ContextId(handle.deployment_id, handle.target.service_id));
    return Finish(std::move(observation), *run);
}

ConnectorResult<Observation> ContextualisingConnector::Finish(Observation observation, Run& run) {
    // The run ended: no other thread touches it any more.
    const auto& result = *run.result;
    if (const auto* failure = std::get_if<Failure>(&result)) {
        if (failure->kind == FailureKind::kRetryHere) {
            return *failure;
        }
        observation.phase = Phase::kFailed;
        observation.failure = failure->kind;
        observation.reason = "contextualisation failed: " + failure->message;
        observation.log = Bounded(observation.log + run.log + observation.reason + "\n", options_.log_cap);
        return observation;
    }
    if (observation.phase != Phase::kReady) {
        return observation;  // configured, but the servers changed since: the next poll sees
    }
    const auto& outcome = std::get<ContextOutcome>(result);
    observation.log = Bounded(observation.log + run.log + outcome.log, options_.log_cap);
    PublishFacts(observation, outcome.facts);
    if (auto key = contextualiser_.PublicKey(run.plan.deployment_id); std::holds_alternative<std::string>(key)) {
        PublishSshAccess(observation, run.plan, std::get<std::string>(key));
    }
    return observation;
}

bool ContextualisingConnector::EndedForOtherServers(Run& run, const Observation& observation, const Handle& handle) {
    {
        const std::lock_guard lock(run.mutex);
        if (!run.result) {
            return false;  // running: its outcome is reported first, the next poll sees the change
        }
    }
    if (observation.phase != Phase::kReady) {
        return false;
    }
    auto hosts = ContextHosts(observation, SshPort(handle.target, options_.ssh_port));
    const auto* now = std::get_if<std::vector<ContextHost>>(&hosts);
    const auto same = [](const ContextHost& a, const ContextHost& b) {
        return a.node == b.node && a.index == b.index && a.address == b.address && a.port == b.port;
    };
    return now != nullptr && !std::equal(now->begin(), now->end(), run.plan.hosts.begin(), run.plan.hosts.end(), same);
}

std::shared_ptr<ContextualisingConnector::Run> ContextualisingConnector::StartRun(
    const Handle& handle, ContextPlan plan, std::string notes
) {
    auto run = std::make_shared<Run>();
    run->log = std::move(notes);
    Run* const raw = run.get();  // the run owns its thread: never a shared_ptr inside it
    const std::string deployment_id = handle.deployment_id;
    plan.progress = [this, raw, deployment_id](const ContextProgress& progress) {
        const bool node_started = progress.task.empty();
        {
            const std::lock_guard lock(raw->mutex);
            raw->latest = ProgressMessage(progress);
            if (node_started) {
                ++raw->nodes_started;
                if (raw->log.size() < kMaxProgressLog) {
                    raw->log += "== " + raw->latest + "\n";
                }
            }
        }
        raw->moved.notify_all();
        if (node_started && options_.changed) {
            options_.changed(deployment_id);
        }
    };
    run->plan = plan;
    run->plan.progress = nullptr;
    const std::lock_guard lock(running_mutex_);
    running_[plan.deployment_id] = run;
    run->thread = std::jthread([this, raw, deployment_id, plan = std::move(plan)](const std::stop_token& stop) {
        auto result = contextualiser_.Configure(plan, stop);
        {
            const std::lock_guard run_lock(raw->mutex);
            raw->result = std::move(result);
        }
        raw->moved.notify_all();
        if (options_.changed) {
            options_.changed(deployment_id);
        }
    });
    return run;
}

std::shared_ptr<ContextualisingConnector::Run> ContextualisingConnector::FindRun(const std::string& context_id) {
    const std::lock_guard lock(running_mutex_);
    const auto it = running_.find(context_id);
    return it == running_.end() ? nullptr : it->second;
}

void ContextualisingConnector::EndRun(const std::string& context_id) {
    std::shared_ptr<Run> run;
    {
        const std::lock_guard lock(running_mutex_);
        const auto it = running_.find(context_id);
        if (it == running_.end()) {
            return;
        }
        run = std::move(it->second);
        running_.erase(it);
    }
    run->thread.request_stop();
    if (run->thread.joinable()) {
        run->thread.join();  // outside the map's lock: a stopped run takes a moment to end
    }
}

ConnectorResult<Deletion> ContextualisingConnector::Delete(const Handle& handle, bool force) {
    {
        // A DELETE during the configuration: stop Ansible first, so nothing is configured on
        // servers being deleted and no ansible-playbook outlives the deployment.
        const std::lock_guard lock(running_mutex_);
        if (const auto it = running_.find(ContextId(handle.deployment_id, handle.target.service_id));
            it != running_.end()) {
            it->second->thread.request_stop();  // the next Poll reports it cancelled
        }
    }
    auto deleted = inner_->Delete(handle, force);
    if (const auto* done = std::get_if<Deletion>(&deleted); done != nullptr && *done == Deletion::kComplete) {
        EndRun(ContextId(handle.deployment_id, handle.target.service_id));  // no poll will come for it
        contextualiser_.Forget(ContextId(handle.deployment_id, handle.target.service_id));
    }
    return deleted;
}

ConnectorResult<bool> ContextualisingConnector::Act(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    return inner_->Act(handle, physical_id, action);
}

}  // namespace orch::connectors
