// Shutdown of the real binary is event-driven: SIGTERM stops it at once, a request already in
// flight is answered before the process exits, and an idle server has no thread that wakes up
// on a short timer to look for a stop flag.
#include "../ops/ops_env.hpp"

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;
using orch::test::ops::OpsApi;

// The engine's idle poll is slow here (the ops config's 50 ms would be the busiest thread).
const std::map<std::string, std::string> kEnv = {
    {"ORCHESTRATOR_WORKFLOW__IDLE_POLL", "10s"},
    {"ORCHESTRATOR_SERVER__BODY_TIMEOUT", "20s"},
    {"ORCHESTRATOR_SERVER__SHUTDOWN_GRACE", "15s"},
    {"ORCHESTRATOR_SERVER__ACCESS_LOG", "false"},
};

int Connect(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    return fd;
}

bool Send(int fd, std::string_view data) {
    return ::send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
}

std::string ReadUntilClosed(int fd, std::chrono::milliseconds timeout) {
    std::string out;
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) {
            continue;
        }
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            break;
        }
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

/// Voluntary context switches (sleeps and waits that returned) of each thread of `pid`, by
/// "tid name".
std::map<std::string, long> WakeupsPerThread(pid_t pid) {
    std::map<std::string, long> out;
    const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& task : std::filesystem::directory_iterator(task_dir)) {
        std::string name;
        std::getline(std::ifstream(task.path() / "comm"), name);
        std::ifstream status(task.path() / "status");
        std::string line;
        while (std::getline(status, line)) {
            if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
                out[task.path().filename().string() + " " + name] = std::stol(line.substr(24));
            }
        }
    }
    return out;
}

}  // namespace

TEST_CASE("an idle server has no thread polling for shutdown", "[reliability][shutdown]") {
    OpsApi api("", kEnv);
    const pid_t pid = api.process().pid();
    // Let start-up settle, then count each thread's wake-ups over two idle seconds. A thread
    // polling a stop flag every 20 ms wakes ~100 times; the periodic work (job claims, lease
    // and schedule scans) runs at intervals of a second or more.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto before = WakeupsPerThread(pid);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const auto after = WakeupsPerThread(pid);
    long busiest = 0;
    std::string busiest_thread;
    for (const auto& [tid, count] : after) {
        const auto it = before.find(tid);
        const long woke = count - (it == before.end() ? 0 : it->second);
        if (woke > busiest) {
            busiest = woke;
            busiest_thread = tid;
        }
    }
    INFO("thread " << busiest_thread << " woke " << busiest << " times in 2 s");
    CHECK(busiest < 40);
}

TEST_CASE("SIGTERM stops the server promptly and answers the request in flight", "[reliability][shutdown]") {
    OpsApi api("", kEnv);
    const int port = api.port();
    // A request whose header has arrived and whose body is still on its way: in flight.
    const std::string body = R"({"template": 42})";
    const int fd = Connect(port);
    REQUIRE(Send(
        fd,
        "POST /deployments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 5)
    ));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    REQUIRE(::kill(api.process().pid(), SIGTERM) == 0);
    // The listener closes at once: new connections are refused while the request drains.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(api.process().Running());
    REQUIRE(Send(fd, body.substr(5)));
    const std::string answer = ReadUntilClosed(fd, std::chrono::seconds(10));
    ::close(fd);
    CHECK(answer.rfind("HTTP/1.1 400 ", 0) == 0);
    CHECK(answer.find("Connection: close") != std::string::npos);
    // Nothing is left to drain: the process is gone well before shutdown_grace (15 s) ends.
    const auto answered = Clock::now();
    CHECK(api.process().Wait(std::chrono::seconds(10)) == 0);
    CHECK(Clock::now() - answered < std::chrono::seconds(2));
    CHECK(api.process().Log().find("\"msg\":\"stopped\"") != std::string::npos);
}

TEST_CASE("SIGTERM on an idle server exits at once", "[reliability][shutdown]") {
    OpsApi api("", kEnv);
    const int idle = Connect(api.port());  // an idle keep-alive connection must not hold the exit
    const auto start = Clock::now();
    CHECK(api.process().Stop(SIGTERM, std::chrono::seconds(10)) == 0);
    CHECK(Clock::now() - start < std::chrono::seconds(2));
    ::close(idle);
}
