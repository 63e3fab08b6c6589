#pragma once

#include <common/http_client.hpp>
#include <common/json.hpp>

#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill
#include <sys/wait.h>
#include <test_support/test_env.hpp>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace orch::sim::test {

/// The site-sim binary, started for one test on free loopback ports (it prints them as one JSON
/// line) and stopped by PID when the object dies.
class SiteSimProcess {
   public:
    /// `config_yaml` (may be empty) is written to a file passed with --config.
    explicit SiteSimProcess(const std::string& config_yaml = "", std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {Binary(), "--log-level", "error"};
        if (!config_yaml.empty()) {
            config_path_ = orch::test::BinaryDir() + "/site-sim-test-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter_++) + ".yaml";
            std::ofstream(config_path_) << config_yaml;
            args.push_back("--config");
            args.push_back(config_path_);
        }
        args.insert(args.end(), extra.begin(), extra.end());
        Start(args);
        const std::string line = ReadLine(std::chrono::seconds(20));
        ports_ = Json::parse(line);
        auto client = http::MakeClient({});
        if (!client) {
            throw std::runtime_error(client.error().message);
        }
        client_ = std::move(*client);
    }

    ~SiteSimProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            if (::waitpid(pid_, &status, WNOHANG) == 0) {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, &status, 0);
            }
        }
        if (out_fd_ >= 0) {
            ::close(out_fd_);
        }
        if (!config_path_.empty()) {
            std::remove(config_path_.c_str());
        }
    }

    SiteSimProcess(const SiteSimProcess&) = delete;
    SiteSimProcess& operator=(const SiteSimProcess&) = delete;

    static std::string Binary() { return orch::test::BinaryDir() + "/bin/site-sim"; }

    /// Runs site-sim with `args` and returns its exit code (for argument errors).
    static int RunToExit(const std::vector<std::string>& args) {
        std::vector<std::string> all = {Binary()};
        all.insert(all.end(), args.begin(), args.end());
        const pid_t pid = ::fork();
        if (pid == 0) {
            Exec(all);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    /// kill -9: the site dies as a crashed host's would, without a chance to close anything.
    void Kill() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            int status = 0;
            ::waitpid(pid_, &status, 0);
            pid_ = -1;
        }
    }

    int Port(const std::string& api) const { return ports_.at(api).get<int>(); }
    std::string Url(const std::string& api) const { return "http://127.0.0.1:" + std::to_string(Port(api)); }
    int pid() const { return pid_; }

    /// An admin call (/__sim/...) on the Marathon port.
    Json Admin(const std::string& method, const std::string& path, const Json& body = nullptr) {
        http::ClientRequest request;
        request.method = method;
        request.url = Url("marathon") + path;
        if (!body.is_null()) {
            request.body = body.dump();
            request.headers.emplace_back("Content-Type", "application/json");
        }
        auto response = client_->Send(request);
        if (!response) {
            throw std::runtime_error(response.error().message);
        }
        return response->body.empty() ? Json(nullptr) : Json::parse(response->body);
    }

    void Fault(const Json& rule) { Admin("POST", "/__sim/faults", rule); }
    void Advance(double seconds) { Admin("POST", "/__sim/clock", {{"advance_seconds", seconds}}); }

   private:
    static void Exec(const std::vector<std::string>& args) {
        std::vector<char*> argv;
        for (const auto& a : args) {
            argv.push_back(const_cast<char*>(a.c_str()));  // NOLINT: execv's signature
        }
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }

    void Start(const std::vector<std::string>& args) {
        int fds[2];
        if (::pipe(fds) != 0) {
            throw std::runtime_error("pipe failed");
        }
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(fds[1], STDOUT_FILENO);
            ::close(fds[0]);
            ::close(fds[1]);
            Exec(args);
        }
        ::close(fds[1]);
        out_fd_ = fds[0];
    }

    std::string ReadLine(std::chrono::seconds limit) {
        std::string line;
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{out_fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) {
                continue;
            }
            char c = 0;
            if (::read(out_fd_, &c, 1) != 1) {
                break;
            }
            if (c == '\n') {
                return line;
            }
            line += c;
        }
        throw std::runtime_error("site-sim did not print its ports (is " + Binary() + " built?)");
    }

    static inline int counter_ = 0;  // NOLINT(readability-identifier-naming): private, hence the _
    pid_t pid_ = -1;
    int out_fd_ = -1;
    std::string config_path_;
    Json ports_;
    std::unique_ptr<http::Client> client_;
};

}  // namespace orch::sim::test
