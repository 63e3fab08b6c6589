#include "connectors/ansible_contextualiser.hpp"

#include "ansible/ansible_facts.hpp"
#include "ansible/ansible_files.hpp"
#include "common/log.hpp"
#include "connectors/bounded_process.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace orch::connectors {
namespace {

namespace fs = std::filesystem;
using connectors::ProcessOutcome;

constexpr std::size_t kFailureCap = 4096;  // Ansible's message in statusReason
constexpr std::size_t kMaxPublicKey = 16 * 1024;

bool WriteFile(const fs::path& path, const std::string& text) {
    const fs::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) {
            return false;
        }
    }
    std::error_code ec;
    fs::rename(temporary, path, ec);  // whole files only, also after a crash mid-write
    return !ec;
}

std::optional<std::string> ReadSmallFile(const fs::path& path, std::size_t cap) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    std::string text(cap, '\0');
    in.read(text.data(), static_cast<std::streamsize>(cap));
    text.resize(static_cast<std::size_t>(in.gcount()));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
        text.pop_back();
    }
    return text;
}

Failure LocalFailure(const std::string& what) {
    // The orchestrator's own disk or tools: not the site's fault, not the user's; try again.
    ORCH_LOG_ERROR("contextualisation: local failure", {{"reason", what}});
    return Failure{FailureKind::kRetryHere, "contextualisation could not prepare its files on the orchestrator"};
}

Failure RunFailure(const std::string& node, const ProcessOutcome& run, std::chrono::seconds limit) {
    if (run.cancelled) {
        return Failure{FailureKind::kRetryHere, "node '" + node + "': configuration cancelled"};
    }
    if (!run.started) {
        ORCH_LOG_ERROR("contextualisation: ansible-playbook did not start", {{"reason", run.output}});
        return Failure{
            FailureKind::kRetryHere, "node '" + node + "': Ansible could not be started on the orchestrator"};
    }
    if (run.timed_out) {
        return Failure{
            FailureKind::kTryAnotherSite,
            "node '" + node + "': Ansible did not finish within " + std::to_string(limit.count()) + " s",
        };
    }
    return Failure{
        FailureKind::kTryAnotherSite,
        "node '" + node + "': Ansible failed (exit " + std::to_string(run.exit_code) +
            "): " + ansible::AnsibleFailure(run.output, kFailureCap),
    };
}

/// An exclusive lock on a deployment's configuration, held for the whole run: the work directory
/// is shared by the replicas, and a poll taken over by another replica while this one's run goes
/// on must not start a second Ansible on the same servers.
class RunLock {
   public:
    explicit RunLock(const std::string& dir)
        : fd_(::open((dir + "/configure.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
        held_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
    }
    ~RunLock() {
        if (fd_ >= 0) {
            ::close(fd_);  // releases the lock
        }
    }
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;
    bool held() const { return held_; }

   private:
    int fd_;
    bool held_ = false;
};

std::string StepHeader(const ContextStep& step) {
    std::string header = "== node " + step.node + " on " + step.host_node + ": roles";
    for (const auto& role : step.roles) {
        header += " " + role;
    }
    for (const auto& interface_playbook : step.playbooks) {
        header += ", " + interface_playbook.operation + " " + interface_playbook.url;
    }
    return header + "\n";
}

/// Runs the steps' ansible-playbook processes side by side: a step starts once every step it
/// comes after is configured, at most `parallel_nodes` at a time, and never beside another step
/// on the same Compute node (both would contend for its package manager), where the plan's order
/// is kept. Most of a deployment's configuration time is these runs, and independent nodes on
/// different servers need not wait for each other. The first failure is the run's: the steps
/// still running are stopped, none is started.
class StepRunner {
   public:
    StepRunner(
        const ContextPlan& plan,
        const std::vector<ProcessSpec>& runs,
        const AnsibleOptions& options,
        const std::stop_token& stop
    )
        : plan_(plan),
          runs_(runs),
          options_(options),
          state_(plan.steps.size(), State::kWaiting),
          results_(plan.steps.size()),
          forward_(stop, [this] { halt_.request_stop(); }) {
        for (std::size_t i = 0; i < plan.steps.size(); ++i) {
            index_[plan.steps[i].node] = i;
        }
    }

    ConnectorResult<ContextOutcome> Run() {
        std::size_t finished = 0;
        while (finished < runs_.size()) {
            if (!failure_) {
                LaunchReady();
            }
            if (running_ == 0) {
                break;
            }
            Collect(WaitForOne());
            ++finished;
        }
        for (auto& thread : threads_) {
            thread.join();
        }
        if (failure_) {
            return *failure_;
        }
        if (finished < runs_.size()) {  // only for a plan whose steps come after later ones
            return Failure{FailureKind::kUserError, "the nodes' configuration order is a cycle"};
        }
        return outcome_;
    }

   private:
    enum class State { kWaiting, kRunning, kDone };

    bool Ready(std::size_t i) const {
        const auto& step = plan_.steps[i];
        for (const auto& before : step.after) {
            const auto it = index_.find(before);
            if (it != index_.end() && state_[it->second] != State::kDone) {
                return false;
            }
        }
        for (std::size_t j = 0; j < plan_.steps.size(); ++j) {
            const bool busy = state_[j] == State::kRunning || (j < i && state_[j] == State::kWaiting);
            if (j != i && busy && plan_.steps[j].host_node == step.host_node) {
                return false;
            }
        }
        return true;
    }

    void LaunchReady() {
        const std::size_t parallel = std::max<std::size_t>(options_.parallel_nodes, 1);
        for (std::size_t i = 0; i < runs_.size() && running_ < parallel; ++i) {
            if (state_[i] != State::kWaiting || !Ready(i)) {
                continue;
            }
            state_[i] = State::kRunning;
            ++running_;
            if (plan_.progress) {
                plan_.progress(ContextProgress{plan_.steps[i].node, "", ""});
            }
            ORCH_LOG_INFO(
                "contextualisation: configuring node",
                {{"deployment_id", plan_.deployment_id},
                 {"node", plan_.steps[i].node},
                 {"host", plan_.steps[i].host_node}}
            );
            threads_.emplace_back([this, i] {
                auto run = RunBounded(runs_[i], halt_.get_token());
                const std::lock_guard lock(mutex_);
                results_[i] = std::move(run);
                done_.notify_all();
            });
        }
    }

    std::pair<std::size_t, ProcessOutcome> WaitForOne() {
        std::unique_lock lock(mutex_);
        std::size_t which = 0;
        done_.wait(lock, [&] {
            for (std::size_t i = 0; i < results_.size(); ++i) {
                if (state_[i] == State::kRunning && results_[i]) {
                    which = i;
                    return true;
                }
            }
            return false;
        });
        state_[which] = State::kDone;
        --running_;
        return {which, std::move(*results_[which])};
    }

    void Collect(const std::pair<std::size_t, ProcessOutcome>& finished) {
        const auto& [i, run] = finished;
        const auto& step = plan_.steps[i];
        outcome_.log += StepHeader(step) + run.output;
        if (run.started && !run.timed_out && !run.cancelled && run.exit_code == 0) {
            outcome_.log += "== node " + step.node + ": configured\n";
            return;
        }
        if (failure_) {
            return;  // stopped because of the first failure, which is the run's
        }
        failure_ = RunFailure(step.node, run, options_.node_time_limit);
        ORCH_LOG_WARN(
            "contextualisation: node failed",
            {{"deployment_id", plan_.deployment_id}, {"node", step.node}, {"reason", failure_->message}}
        );
        halt_.request_stop();
    }

    const ContextPlan& plan_;
    const std::vector<ProcessSpec>& runs_;
    const AnsibleOptions& options_;
    std::map<std::string, std::size_t> index_;
    std::vector<State> state_;  // touched by Run's thread only
    std::size_t running_ = 0;
    ContextOutcome outcome_;
    std::optional<Failure> failure_;
    std::mutex mutex_;
    std::condition_variable done_;
    std::vector<std::optional<ProcessOutcome>> results_;  // guarded by mutex_
    std::stop_source halt_;
    std::stop_callback<std::function<void()>> forward_;
    std::vector<std::jthread> threads_;  // last: joined before what they use goes away
};

}  // namespace

AnsibleContextualiser::AnsibleContextualiser(AnsibleOptions options) : options_(std::move(options)) {}

ConnectorResult<std::string> AnsibleContextualiser::DeploymentDir(const std::string& deployment_id) const {
    const bool valid = !deployment_id.empty() && deployment_id.size() <= 64 &&
                       std::all_of(deployment_id.begin(), deployment_id.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-';
                       });
    if (!valid) {
        return Failure{FailureKind::kUserError, "contextualisation needs a deployment id of letters, digits and '-'"};
    }
    const fs::path dir = fs::path(options_.work_dir) / deployment_id;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        return LocalFailure("cannot create " + dir.string() + ": " + ec.message());
    }
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
    return dir.string();
}

std::vector<std::string> AnsibleContextualiser::Environment(const std::string& dir) const {
    const char* path = std::getenv("PATH");
    const std::string ssh_args =
        "-o ControlMaster=no -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no "
        "-o UserKnownHostsFile=/dev/null -o ConnectTimeout=" +
        std::to_string(options_.connect_timeout.count());
    return {
        std::string("PATH=") + (path != nullptr ? path : "/usr/bin:/bin"),
        "HOME=" + dir,
        "LANG=C.UTF-8",
        "ANSIBLE_CONFIG=" + dir + "/ansible.cfg",
        "ANSIBLE_ROLES_PATH=" + dir + "/roles:" + options_.role_dir,
        "ANSIBLE_LOCAL_TEMP=" + dir + "/tmp",
        "ANSIBLE_HOST_KEY_CHECKING=False",
        "ANSIBLE_RETRY_FILES_ENABLED=False",
        "ANSIBLE_NOCOLOR=1",
        // One SSH session per task instead of three (no module upload): the runs are several
        // times shorter. Needs no "requiretty" in sudoers, which cloud images do not set.
        "ANSIBLE_PIPELINING=True",
        "ANSIBLE_SSH_ARGS=" + ssh_args,
        "ANSIBLE_TIMEOUT=" + std::to_string(options_.connect_timeout.count()),
        "ANSIBLE_INVENTORY_ENABLED=yaml",
        "ANSIBLE_STDOUT_CALLBACK=default",
    };
}

ConnectorResult<std::string> AnsibleContextualiser::PublicKey(const std::string& deployment_id) {
    auto dir = DeploymentDir(deployment_id);
    if (auto* failure = std::get_if<Failure>(&dir)) {
        return *failure;
    }
    const fs::path key = fs::path(std::get<std::string>(dir)) / "id_ed25519";
    // The public half is written last: when it is there, the pair is whole.
    if (auto text = ReadSmallFile(key.string() + ".pub", kMaxPublicKey); text && !text->empty()) {
        return *text;
    }
    const fs::path staging = fs::path(std::get<std::string>(dir)) / "staging_key";
    std::error_code ec;
    fs::remove(staging, ec);
    fs::remove(staging.string() + ".pub", ec);
    ProcessSpec spec;
    spec.program = options_.ssh_keygen;
    spec.args = {"-q", "-t", "ed25519", "-N", "", "-C", "orch-" + deployment_id, "-f", staging.string()};
    spec.env = Environment(std::get<std::string>(dir));
    spec.time_limit = std::chrono::seconds(30);
    spec.output_cap = 4096;
    const auto run = RunBounded(spec, {});
    if (!run.started || run.exit_code != 0) {
        return LocalFailure("ssh-keygen: " + run.output);
    }
    fs::rename(staging, key, ec);
    if (!ec) {
        fs::rename(staging.string() + ".pub", key.string() + ".pub", ec);
    }
    if (ec) {
        return LocalFailure("cannot store the key pair: " + ec.message());
    }
    auto text = ReadSmallFile(key.string() + ".pub", kMaxPublicKey);
    if (!text || text->empty()) {
        return LocalFailure("the public key is unreadable");
    }
    return *text;
}

std::optional<Failure> AnsibleContextualiser::InstallRoles(
    const ContextPlan& plan, const std::string& dir, const std::stop_token& stop
) {
    std::set<std::string> roles;
    for (const auto& step : plan.steps) {
        roles.insert(step.roles.begin(), step.roles.end());
    }
    for (const auto& role : roles) {
        if (!ansible::IsRoleName(role)) {
            return Failure{FailureKind::kUserError, "'" + role.substr(0, 200) + "' is not an Ansible Galaxy role name"};
        }
        std::error_code ec;
        if (!options_.role_dir.empty() && fs::is_directory(fs::path(options_.role_dir) / role, ec)) {
            continue;
        }
        if (fs::is_directory(fs::path(dir) / "roles" / role, ec)) {
            continue;  // installed by an earlier run
        }
        if (options_.galaxy_server.empty()) {
            return Failure{
                FailureKind::kUserError, "the Ansible role '" + role + "' is not in the configured role source"};
        }
        ProcessSpec spec;
        spec.program = options_.ansible_galaxy;
        spec.args = {"role", "install", "--server", options_.galaxy_server, "-p", dir + "/roles", role};
        spec.env = Environment(dir);
        spec.cwd = dir;
        spec.time_limit = options_.node_time_limit;
        spec.output_cap = options_.output_cap;
        const auto run = RunBounded(spec, stop);
        if (!run.started || run.exit_code != 0 || run.timed_out || run.cancelled) {
            if (run.cancelled) {
                return Failure{FailureKind::kRetryHere, "role installation cancelled"};
            }
            return Failure{
                FailureKind::kRetryHere,
                "the Ansible role '" + role +
                    "' could not be installed: " + ansible::AnsibleFailure(run.output, kFailureCap),
            };
        }
    }
    return std::nullopt;
}

ConnectorResult<std::string> AnsibleContextualiser::StepPlaybook(
    const ContextStep& step, const std::string& dir, const std::string& stem
) {
    const std::string vars_file = dir + "/" + stem + ".vars.yml";
    if (!WriteFile(vars_file, ansible::UnsafeYaml(step.vars) + "\n")) {
        return LocalFailure("cannot write the variables in " + dir);
    }
    std::string text = step.roles.empty() ? std::string() : ansible::PlaybookText(step, vars_file);
    for (std::size_t i = 0; i < step.playbooks.size(); ++i) {
        const auto& playbook = step.playbooks[i];
        const std::string what =
            "the " + playbook.operation + " playbook of node '" + step.node + "' (" + playbook.url.substr(0, 300) + ")";
        if (!options_.read_playbook) {
            return Failure{FailureKind::kUserError, what + ": this orchestrator has no playbook source"};
        }
        auto fetched = options_.read_playbook(playbook.url);
        if (!fetched) {
            const ErrorCode code = fetched.error().code;
            if (code == ErrorCode::kUnavailable || code == ErrorCode::kDeadlineExceeded) {
                ORCH_LOG_WARN(
                    "contextualisation: playbook not fetched",
                    {{"url", playbook.url}, {"reason", fetched.error().message}}
                );
                return Failure{FailureKind::kRetryHere, what + " could not be fetched now"};
            }
            // Refused by the mirror/allow-list, missing or malformed: the same on every site.
            return Failure{FailureKind::kUserError, what + " cannot be used: " + fetched.error().message};
        }
        const std::string inputs_file = dir + "/" + stem + "." + std::to_string(i) + ".inputs.yml";
        if (!WriteFile(inputs_file, ansible::UnsafeYaml(playbook.inputs) + "\n")) {
            return LocalFailure("cannot write the playbook inputs in " + dir);
        }
        auto rewritten = ansible::InterfacePlaybookText(step, playbook, fetched.value(), {vars_file, inputs_file});
        if (auto* failure = std::get_if<Failure>(&rewritten)) {
            return *failure;
        }
        text += std::get<std::string>(rewritten);
    }
    return text;
}

ConnectorResult<ContextOutcome> AnsibleContextualiser::Configure(const ContextPlan& plan, std::stop_token stop) {
    auto made = DeploymentDir(plan.deployment_id);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    const std::string dir = std::get<std::string>(made);
    const RunLock lock(dir);
    if (!lock.held()) {
        return Failure{FailureKind::kRetryHere, "the servers are being configured by another orchestrator process"};
    }
    if (auto key = PublicKey(plan.deployment_id); std::holds_alternative<Failure>(key)) {
        return std::get<Failure>(key);
    }
    auto inventory = ansible::InventoryText(plan, dir + "/id_ed25519");
    if (auto* failure = std::get_if<Failure>(&inventory)) {
        return *failure;
    }
    std::error_code ec;
    fs::create_directories(fs::path(dir) / "tmp", ec);
    fs::create_directories(fs::path(dir) / "roles", ec);
    if (ec || !WriteFile(fs::path(dir) / "inventory.json", std::get<std::string>(inventory)) ||
        !WriteFile(fs::path(dir) / "ansible.cfg", "[defaults]\nforks = 10\n")) {
        return LocalFailure("cannot write the inventory in " + dir);
    }
    if (auto failure = InstallRoles(plan, dir, stop)) {
        return *failure;
    }
    std::vector<ProcessSpec> runs;
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const std::string stem = "step-" + std::to_string(i);
        auto playbook = StepPlaybook(plan.steps[i], dir, stem);
        if (auto* failure = std::get_if<Failure>(&playbook)) {
            return *failure;
        }
        if (!WriteFile(fs::path(dir) / (stem + ".yml"), std::get<std::string>(playbook))) {
            return LocalFailure("cannot write the playbook in " + dir);
        }
        ProcessSpec spec;
        spec.program = options_.ansible_playbook;
        spec.args = {"-i", dir + "/inventory.json", dir + "/" + stem + ".yml"};
        spec.env = Environment(dir);
        spec.cwd = dir;
        spec.time_limit = options_.node_time_limit;
        spec.output_cap = options_.output_cap;
        if (plan.progress) {
            // Ansible's task headers, as they come: what the node's configuration is doing now.
            spec.on_line = [&progress = plan.progress, node = plan.steps[i].node](std::string_view line) {
                if (auto task = ParseAnsibleTaskHeader(line)) {
                    task->node = node;
                    progress(*task);
                }
            };
        }
        runs.push_back(std::move(spec));
    }
    auto outcome = StepRunner(plan, runs, options_, stop).Run();
    if (auto* done = std::get_if<ContextOutcome>(&outcome)) {
        if (auto failure = GatherFacts(plan, dir, stop, *done)) {
            return *failure;
        }
    }
    return outcome;
}

std::optional<Failure> AnsibleContextualiser::GatherFacts(
    const ContextPlan& plan, const std::string& dir, const std::stop_token& stop, ContextOutcome& outcome
) {
    // Facts of a configured server (distribution, hostname, memory, GPUs) become its node's
    // attributes, as IM reports what it reads inside the VM. Not having them is no reason to fail
    // a configuration that succeeded: the attributes stay null and the log says why.
    const fs::path facts_dir = fs::path(dir) / "facts";
    std::error_code ec;
    fs::remove_all(facts_dir, ec);  // never a previous run's facts
    fs::create_directories(facts_dir, ec);
    if (ec || !WriteFile(fs::path(dir) / "facts.yml", ansible::FactsPlaybookText(facts_dir.string()))) {
        outcome.log += "== facts not gathered: the orchestrator could not write their playbook\n";
        return std::nullopt;
    }
    ProcessSpec spec;
    spec.program = options_.ansible_playbook;
    spec.args = {"-i", dir + "/inventory.json", dir + "/facts.yml"};
    spec.env = Environment(dir);
    spec.cwd = dir;
    const std::chrono::seconds limit = std::min(options_.node_time_limit, std::chrono::seconds(300));
    spec.time_limit = limit;
    spec.output_cap = options_.output_cap;
    const auto run = RunBounded(spec, stop);
    if (run.cancelled) {
        return RunFailure("facts", run, limit);
    }
    outcome.facts = ansible::ReadFacts(plan, facts_dir.string());
    if (!run.started || run.timed_out || run.exit_code != 0) {
        outcome.log +=
            "== facts not gathered from every server: " + ansible::AnsibleFailure(run.output, kFailureCap) + "\n";
    } else {
        outcome.log += "== facts gathered from " + std::to_string(outcome.facts.size()) + " server(s)\n";
    }
    return std::nullopt;
}

void AnsibleContextualiser::Forget(const std::string& deployment_id) {
    if (deployment_id.empty() || deployment_id.find_first_of("/.") != std::string::npos) {
        return;  // never a path outside work_dir
    }
    std::error_code ec;
    fs::remove_all(fs::path(options_.work_dir) / deployment_id, ec);
}

}  // namespace orch::connectors
