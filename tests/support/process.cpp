#include "test_support/process.hpp"

#include "test_support/test_env.hpp"

#include <common/http_client.hpp>
#include <common/uuid.hpp>

#include <fcntl.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX sigprocmask
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace orch::test {
namespace {

int DecodeStatus(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return -1;
}

}  // namespace

ChildProcess::ChildProcess(
    std::string program,
    std::vector<std::string> args,
    const std::map<std::string, std::string>& env,
    std::string log_path
)
    : log_path_(std::move(log_path)) {
    std::vector<std::string> argv_store{std::move(program)};
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ < 0) {
        throw std::runtime_error("fork failed");
    }
    if (pid_ == 0) {
        // Child: a new process group so signals aimed at the test runner do not reach it twice.
        ::setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        const int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            ::dup2(fd, STDOUT_FILENO);
            ::dup2(fd, STDERR_FILENO);
            ::close(fd);
        }
        for (const auto& [key, value] : env) {
            ::setenv(key.c_str(), value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe): single-threaded child
        }
        std::vector<char*> argv;
        argv.reserve(argv_store.size() + 1);
        for (auto& a : argv_store) {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
}

ChildProcess::~ChildProcess() {
    if (Running()) {
        Stop(SIGTERM, std::chrono::seconds(10));
    }
    if (Running()) {
        Stop(SIGKILL, std::chrono::seconds(5));
    }
}

bool ChildProcess::Running() {
    if (pid_ <= 0 || exit_code_ != -1) {
        return false;
    }
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        exit_code_ = DecodeStatus(status);
        return false;
    }
    return r == 0;
}

int ChildProcess::Wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (Running()) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exit_code_;
}

int ChildProcess::Stop(int signal, std::chrono::milliseconds timeout) {
    if (Running()) {
        ::kill(pid_, signal);
    }
    return Wait(timeout);
}

std::string ChildProcess::Log() const {
    try {
        return ReadFile(log_path_);
    } catch (const std::exception&) {
        return {};
    }
}

bool WaitForStatus(const std::string& url, int status, std::chrono::milliseconds timeout) {
    auto client = http::MakeClient({});
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        http::ClientRequest req;
        req.url = url;
        req.timeout = std::chrono::milliseconds(1000);
        auto res = (*client)->Send(req);
        if (res && res->status == status) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
}

namespace {

std::map<std::string, std::string> OrchestratorEnv(
    const std::string& db_url, int port, std::map<std::string, std::string> extra, bool has_config_file
) {
    extra["ORCHESTRATOR_DB_URL"] = db_url;
    extra["ORCHESTRATOR_LISTEN"] = "127.0.0.1:" + std::to_string(port);
    extra.emplace("ORCHESTRATOR_LOG_LEVEL", "info");
    // Tests that exercise authentication configure it; the others run without it.
    extra.emplace("ORCHESTRATOR_AUTH__MODE", "disabled");
    if (!has_config_file) {
        // Placement needs a site catalogue and SLAs: empty ones unless the test brings a config.
        const std::string dir = BinaryDir() + "/e2e-empty-placement";
        std::filesystem::create_directories(dir);
        std::ofstream(dir + "/catalogue.yaml") << "providers: []\n";
        std::ofstream(dir + "/sla.yaml") << "{}\n";
        extra.emplace("ORCHESTRATOR_PLACEMENT__CATALOGUE__PATH", dir + "/catalogue.yaml");
        extra.emplace("ORCHESTRATOR_PLACEMENT__SLA__PATH", dir + "/sla.yaml");
    }
    return extra;
}

std::vector<std::string> ConfigArgs(const std::string& config_file) {
    if (config_file.empty()) {
        return {};
    }
    return {"--config", config_file};
}

}  // namespace

OrchestratorProcess::OrchestratorProcess(
    const std::string& db_url, std::map<std::string, std::string> extra_env, const std::string& config_file
)
    : port_(FreePort()),
      process_(
          BinaryDir() + "/bin/orchestrator",
          ConfigArgs(config_file),
          OrchestratorEnv(db_url, port_, std::move(extra_env), !config_file.empty()),
          BinaryDir() + "/orchestrator-" + RandomUuid().substr(0, 8) + ".log"
      ) {
    // Polls in short slices so a process that exits at startup fails the test at once.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!WaitForStatus(BaseUrl() + "/healthz", 200, std::chrono::milliseconds(200))) {
        if (!process_.Running() || std::chrono::steady_clock::now() > deadline) {
            throw std::runtime_error("orchestrator did not start:\n" + process_.Log());
        }
    }
}

}  // namespace orch::test
