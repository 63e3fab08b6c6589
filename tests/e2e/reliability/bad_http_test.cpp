// Bad HTTP against the real binary: oversized, truncated, slow-loris and malformed requests.
// The server must not crash, must keep serving others, must answer clear errors where it can,
// and its memory must stay bounded.
#include "../ops/ops_env.hpp"

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using orch::test::ops::OpsApi;

// Short timeouts so the test is quick; limits small enough to hit cheaply.
const std::map<std::string, std::string> kEnv = {
    {"ORCHESTRATOR_SERVER__HEADER_TIMEOUT", "1s"},
    {"ORCHESTRATOR_SERVER__BODY_TIMEOUT", "2s"},
    {"ORCHESTRATOR_SERVER__IDLE_TIMEOUT", "30s"},
    {"ORCHESTRATOR_SERVER__BODY_LIMIT", "1MiB"},
    {"ORCHESTRATOR_SERVER__HEADER_LIMIT", "16KiB"},
    {"ORCHESTRATOR_SERVER__ACCESS_LOG", "false"},
};

class Socket {
   public:
    explicit Socket(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        REQUIRE(fd_ >= 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    }
    ~Socket() { ::close(fd_); }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    bool Send(std::string_view data) {
        return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
    }
    void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

    /// Everything the server sends until it closes the connection or `timeout` passes.
    std::string ReadUntilClosed(std::chrono::milliseconds timeout) {
        std::string out;
        const auto deadline = Clock::now() + timeout;
        while (Clock::now() < deadline) {
            pollfd p{fd_, POLLIN, 0};
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(1, left.count()))) <= 0) {
                continue;
            }
            char buf[4096];
            const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) {
                closed_ = true;
                break;
            }
            out.append(buf, static_cast<std::size_t>(n));
        }
        return out;
    }
    bool closed() const { return closed_; }

   private:
    int fd_;
    bool closed_ = false;
};

int StatusOf(const std::string& response) {
    if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) {
        return 0;
    }
    return std::stoi(response.substr(9, 3));
}

long VmRssKiB(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

std::string Raw(int port, const std::string& request, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    Socket s(port);
    s.Send(request);
    return s.ReadUntilClosed(timeout);
}

bool Healthy(OpsApi& api) {
    return api.Call("GET", "/healthz", "", {}).status == 200;
}

}  // namespace

TEST_CASE("slow-loris connections time out while other clients are served", "[reliability][http]") {
    OpsApi api("", kEnv);
    std::vector<std::unique_ptr<Socket>> slow;
    for (int i = 0; i < 20; ++i) {
        slow.push_back(std::make_unique<Socket>(api.port()));
        REQUIRE(slow.back()->Send("GET /deployments HTTP/1.1\r\nHo"));
    }
    // Dribble one byte per connection every 100 ms: never a complete header.
    const auto started = Clock::now();
    const std::string dribble = "st: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    std::size_t offset = 0;
    int served_meanwhile = 0;
    while (Clock::now() - started < std::chrono::milliseconds(2500)) {
        for (auto& s : slow) {
            s->Send(dribble.substr(offset % dribble.size(), 1));
        }
        ++offset;
        served_meanwhile += Healthy(api) ? 1 : 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(served_meanwhile >= 10);
    // header_timeout is 1 s: every slow connection has been closed by the server by now.
    int closed = 0;
    for (auto& s : slow) {
        s->ReadUntilClosed(std::chrono::seconds(3));
        closed += s->closed() ? 1 : 0;
    }
    CHECK(closed == 20);
    CHECK(Healthy(api));
}

TEST_CASE("oversized, truncated and malformed requests get clear errors, never a crash", "[reliability][http]") {
    OpsApi api("", kEnv);
    const int port = api.port();
    SECTION("a header larger than the limit is 431") {
        const auto res = Raw(port, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(32 << 10, 'a') + "\r\n\r\n");
        CHECK(StatusOf(res) == 431);
        CHECK(res.find("\"code\":431") != std::string::npos);
    }
    SECTION("a body larger than the limit is 413") {
        const auto res =
            Raw(port,
                "POST /deployments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                "Content-Length: 5000000\r\n\r\n{");
        CHECK(StatusOf(res) == 413);
    }
    SECTION("a body that never completes is 408 after the body timeout") {
        Socket s(port);
        s.Send(
            "POST /deployments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
            "100\r\n\r\n{\"te"
        );
        const auto started = Clock::now();
        const auto res = s.ReadUntilClosed(std::chrono::seconds(10));
        CHECK(s.closed());
        CHECK(Clock::now() - started < std::chrono::seconds(5));
        CHECK((res.empty() || StatusOf(res) == 408));
    }
    SECTION("a truncated body followed by a close leaves the server unharmed") {
        Socket s(port);
        s.Send("POST /deployments HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc");
        s.ShutdownWrite();
        s.ReadUntilClosed(std::chrono::seconds(5));
        CHECK(s.closed());
    }
    SECTION("malformed requests are 400 with the error body") {
        for (const std::string& bad :
             {std::string("GARBAGE\r\n\r\n"),
              std::string("GET / HTTP/9.9\r\n\r\n"),
              std::string("GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
              std::string("GET / HTTP/1.1\r\nBad Header Line\r\n\r\n"),
              std::string("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n"),
              std::string("\x00\xff\xfe GET\r\n\r\n", 10)}) {
            INFO("request " << bad);
            const auto res = Raw(port, bad);
            CHECK(StatusOf(res) == 400);
            CHECK(res.find("\"code\":400") != std::string::npos);
        }
    }
    CHECK(api.process().Running());
    CHECK(Healthy(api));
}

TEST_CASE("memory stays bounded under repeated bad requests", "[reliability][http]") {
    OpsApi api("", kEnv);
    const int port = api.port();
    const pid_t pid = api.process().pid();
    // Warm up allocator pools and thread stacks before measuring.
    for (int i = 0; i < 20; ++i) {
        Raw(port, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20 << 10, 'a') + "\r\n\r\n");
    }
    const long before = VmRssKiB(pid);
    REQUIRE(before > 0);
    const std::string bad_json = R"({"template": 12345, "x": [1, {"y": null}]})";
    for (int round = 0; round < 100; ++round) {
        Raw(port, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20 << 10, 'a') + "\r\n\r\n");
        Raw(port,
            "POST /deployments HTTP/1.1\r\nHost: x\r\nContent-Length: 900000\r\n\r\n" + std::string(64 << 10, 'b'),
            std::chrono::milliseconds(200));
        Raw(port, "GARBAGE\r\n\r\n");
        Raw(port,
            "POST /deployments HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
            "Content-Length: " +
                std::to_string(bad_json.size()) + "\r\n\r\n" + bad_json);
    }
    const long after = VmRssKiB(pid);
    INFO("VmRSS before " << before << " KiB, after " << after << " KiB");
    CHECK(after - before < 32 * 1024);
    CHECK(api.process().Running());
    CHECK(Healthy(api));
}
