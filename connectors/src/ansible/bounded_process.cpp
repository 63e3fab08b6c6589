#include "connectors/bounded_process.hpp"

#include "connectors/site_events.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill and signal numbers
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <thread>

namespace orch::connectors {
namespace {

using Clock = std::chrono::steady_clock;

/// Keeps the first and the last half of `cap` bytes of a stream and counts what falls between.
class BoundedOutput {
   public:
    explicit BoundedOutput(std::size_t cap) : half_(std::max<std::size_t>(cap / 2, 1)) {}

    void Append(const char* data, std::size_t size) {
        while (size > 0 && head_.size() < half_) {
            const std::size_t take = std::min(size, half_ - head_.size());
            head_.append(data, take);
            data += take;
            size -= take;
        }
        if (size == 0) {
            return;
        }
        tail_.append(data, size);
        if (tail_.size() > 2 * half_) {
            const std::size_t drop = tail_.size() - half_;
            tail_.erase(0, drop);
            dropped_ += drop;
        }
    }

    std::string Text() && {
        if (tail_.size() > half_) {
            dropped_ += tail_.size() - half_;
            tail_.erase(0, tail_.size() - half_);
        }
        if (dropped_ == 0) {
            return head_ + tail_;
        }
        return head_ + "\n[... " + std::to_string(dropped_) + " bytes of output left out ...]\n" + tail_;
    }

   private:
    std::size_t half_;
    std::string head_, tail_;
    std::size_t dropped_ = 0;
};

std::vector<char*> Pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

int ExitCode(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

// SIGTERM to the whole group (ansible-playbook forks ssh workers), SIGKILL if it lingers.
int KillGroup(pid_t pid) {
    ::kill(-pid, SIGTERM);
    const auto give_up = Clock::now() + std::chrono::seconds(3);
    int status = 0;
    while (Clock::now() < give_up) {
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            ::kill(-pid, SIGKILL);  // stragglers of the group
            return ExitCode(status);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return ExitCode(status);
}

}  // namespace

ProcessOutcome RunBounded(const ProcessSpec& spec, const std::stop_token& stop) {
    ProcessOutcome outcome;
    std::array<int, 2> pipe_fds{-1, -1};
    if (::pipe2(pipe_fds.data(), O_CLOEXEC) != 0) {
        outcome.output = std::string("cannot make a pipe: ") + std::strerror(errno);
        return outcome;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
    if (!spec.cwd.empty()) {
        posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
    }
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);

    std::vector<std::string> argv_strings{spec.program};
    argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
    std::vector<std::string> env_strings = spec.env;
    auto argv = Pointers(argv_strings);
    auto envp = Pointers(env_strings);
    pid_t pid = -1;
    const int spawned = ::posix_spawnp(&pid, spec.program.c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(pipe_fds[1]);
    if (spawned != 0) {
        ::close(pipe_fds[0]);
        outcome.output = "cannot start " + spec.program + ": " + std::strerror(spawned);
        return outcome;
    }
    outcome.started = true;

    BoundedOutput output(spec.output_cap);
    LineSplitter lines(spec.max_line);
    const auto deadline = Clock::now() + spec.time_limit;
    std::array<char, 8192> buffer{};
    bool open = true;
    while (open) {
        if (stop.stop_requested()) {
            outcome.cancelled = true;
            break;
        }
        if (Clock::now() >= deadline) {
            outcome.timed_out = true;
            break;
        }
        pollfd fd{pipe_fds[0], POLLIN, 0};
        if (::poll(&fd, 1, 100) <= 0) {
            continue;  // a tick to look at the deadline and the stop request
        }
        const ssize_t n = ::read(pipe_fds[0], buffer.data(), buffer.size());
        if (n > 0) {
            output.Append(buffer.data(), static_cast<std::size_t>(n));
            if (spec.on_line) {
                lines.Feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), spec.on_line);
            }
        } else if (n == 0 || errno != EINTR) {
            open = false;
        }
    }
    ::close(pipe_fds[0]);
    if (outcome.timed_out || outcome.cancelled) {
        outcome.exit_code = KillGroup(pid);
    } else {
        int status = 0;
        // The output closed: the program is done or about to be; its group may keep children
        // that inherited the pipe no longer, so waiting is bounded by the same deadline.
        while (::waitpid(pid, &status, WNOHANG) == 0) {
            if (Clock::now() >= deadline || stop.stop_requested()) {
                outcome.timed_out = !stop.stop_requested();
                outcome.cancelled = stop.stop_requested();
                outcome.exit_code = KillGroup(pid);
                outcome.output = std::move(output).Text();
                return outcome;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        outcome.exit_code = ExitCode(status);
    }
    outcome.output = std::move(output).Text();
    return outcome;
}

}  // namespace orch::connectors
