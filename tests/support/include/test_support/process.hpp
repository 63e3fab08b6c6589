#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace orch::test {

/// A child process for e2e tests: started with extra environment, output to a log file,
/// stopped by PID (SIGTERM, then SIGKILL after a grace period) when the object dies.
class ChildProcess {
   public:
    ChildProcess(
        std::string program,
        std::vector<std::string> args,
        const std::map<std::string, std::string>& env,
        std::string log_path
    );
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }
    bool Running();
    /// Sends `signal` and waits up to `timeout`; returns the exit code, 128+signal, or -1 on timeout.
    int Stop(int signal, std::chrono::milliseconds timeout);
    /// Waits for exit without signalling; -1 on timeout.
    int Wait(std::chrono::milliseconds timeout);
    std::string Log() const;

   private:
    pid_t pid_ = -1;
    int exit_code_ = -1;
    std::string log_path_;
};

/// The built orchestrator binary on a free port with the given database and extra environment.
/// Waits until GET / answers (or throws with the process log).
class OrchestratorProcess {
   public:
    explicit OrchestratorProcess(
        const std::string& db_url,
        std::map<std::string, std::string> extra_env = {},
        const std::string& config_file = ""
    );
    int port() const { return port_; }
    std::string BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
    ChildProcess& process() { return process_; }

   private:
    int port_;
    ChildProcess process_;
};

/// Polls until GET `url` answers with `status` or the timeout passes.
bool WaitForStatus(const std::string& url, int status, std::chrono::milliseconds timeout);

}  // namespace orch::test
