// Streamed responses on a real HttpServer over loopback: how many times idle streams wake the
// server's threads, that news still goes out, that a stopping server ends waiting streams, and
// that a client which does not read is dropped.
#include "orchestrator/server/http_server.hpp"
#include "orchestrator/server/inline_stream.hpp"
#include "orchestrator/server/response_stream.hpp"
#include "orchestrator/server/router.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using orch::server::ResponseStream;

// Says ": open" once, then only what `news` asks for (one line per increment); Idle otherwise.
class QuietStream final : public ResponseStream {
   public:
    QuietStream(std::atomic<int>& news, std::atomic<int>& opened, std::chrono::milliseconds interval)
        : news_(news), opened_(opened), interval_(interval) {}
    bool Next(std::string& out) override {
        if (!open_.exchange(true)) {
            out = ": open\n\n";
            ++opened_;
        }
        for (const int want = news_.load(); sent_ < want; ++sent_) {
            out += "data: news\n\n";
        }
        return true;
    }
    bool Idle() const override { return open_.load() && sent_.load() >= news_.load(); }
    std::chrono::milliseconds interval() const override { return interval_; }
    std::string Dropped() const override { return "event: dropped\n\n"; }

   private:
    std::atomic<int>& news_;
    std::atomic<int>& opened_;
    std::chrono::milliseconds interval_;
    std::atomic<bool> open_{false};
    std::atomic<int> sent_{0};
};

// Never idle: 16 KiB every turn, for a client that does not read.
class FloodStream final : public ResponseStream {
   public:
    bool Next(std::string& out) override {
        out.assign(16u << 10, 'x');
        out += "\n\n";
        return true;
    }
    std::chrono::milliseconds interval() const override { return 10ms; }
    std::string Dropped() const override { return "event: dropped\n\n"; }
};

// Writes its news on the I/O thread (as the event streams write their share of the event
// window), each write taking `cost` of that thread: a thousand such streams with news at one
// tick are a burst. Counts the writes of all of them in `writes`; the first one raises `began`.
class BurstStream final : public orch::server::InlineStream {
   public:
    BurstStream(std::atomic<int>& news, std::atomic<int>& writes, std::atomic<bool>& began)
        : news_(news), writes_(writes), began_(began) {}
    bool Next(std::string& out) override {
        out = ": open\n\n";
        open_ = true;
        return true;
    }
    bool WriteInline(std::string& out) override {
        if (!open_.load() || sent_.load() >= news_.load()) {
            return false;
        }
        sent_ = news_.load();
        out = "data: news\n\n";
        const auto until = std::chrono::steady_clock::now() + 500us;
        while (std::chrono::steady_clock::now() < until) {
        }
        ++writes_;
        began_ = true;
        return true;
    }
    bool Idle() const override { return open_.load() && sent_.load() >= news_.load(); }
    std::chrono::milliseconds interval() const override { return 100ms; }
    std::string Dropped() const override { return "event: dropped\n\n"; }

   private:
    std::atomic<int>& news_;
    std::atomic<int>& writes_;
    std::atomic<bool>& began_;
    std::atomic<bool> open_{false};
    std::atomic<int> sent_{0};
};

// The server on its own thread, on a free port of 127.0.0.1.
class Served {
   public:
    Served(orch::server::Router router, orch::server::ServerOptions options) : router_(std::move(router)) {
        options.listen = "127.0.0.1:0";
        options.access_log = false;
        server_ = std::make_unique<orch::server::HttpServer>(options, router_);
        REQUIRE(server_->Start().has_value());
        thread_ = std::thread([this] {
            server_->Run();
            ran_out_ = true;
        });
    }
    ~Served() {
        server_->Stop();
        thread_.join();
    }
    Served(const Served&) = delete;
    Served& operator=(const Served&) = delete;
    int port() const { return server_->port(); }
    void Stop() { server_->Stop(); }
    bool ran_out() const { return ran_out_.load(); }

   private:
    orch::server::Router router_;
    std::unique_ptr<orch::server::HttpServer> server_;
    std::thread thread_;
    std::atomic<bool> ran_out_{false};
};

// A connected client that sent `GET path`; receive_buffer > 0 shrinks its socket's buffer.
int OpenStream(int port, const std::string& path, int receive_buffer = 0) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer > 0) {
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);  // NOLINT: sockets API
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n";
    REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
    return fd;
}

// What arrives on `fd` until `until` is in it, the peer closes, or `timeout` passes.
std::string ReadUntil(int fd, const std::string& until, std::chrono::milliseconds timeout) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline && (until.empty() || got.find(until) == std::string::npos)) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) {
            continue;
        }
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            break;
        }
        got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
}

// Voluntary context switches (a thread going to sleep: for the I/O thread, one per wake-up) of
// every thread of this process but the calling one.
long OtherThreadsSleeps() {
    const long self = ::syscall(SYS_gettid);
    long total = 0;
    DIR* dir = ::opendir("/proc/self/task");
    REQUIRE(dir != nullptr);
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name == "." || name == ".." || std::stol(name) == self) {
            continue;
        }
        std::ifstream status("/proc/self/task/" + name + "/status");
        for (std::string line; std::getline(status, line);) {
            if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
                total += std::stol(line.substr(line.find(':') + 1));
            }
        }
    }
    ::closedir(dir);
    return total;
}

}  // namespace

TEST_CASE("idle streams wake the I/O thread once per interval together, not once each", "[server][streams]") {
    constexpr int kStreams = 200;
    constexpr auto kInterval = 100ms;
    std::atomic<int> news{0};
    std::atomic<int> opened{0};
    orch::server::Router router;
    router.Add("GET", "/s", [&](const orch::server::Request&) {
        return orch::server::Response::Stream(
            "text/event-stream", std::make_shared<QuietStream>(news, opened, kInterval)
        );
    });
    orch::server::ServerOptions options;
    options.io_threads = 1;
    options.worker_threads = 2;
    Served served(std::move(router), options);

    // Opened over more than one interval, so one timer each would fire at 200 different moments.
    std::vector<int> clients;
    for (int i = 0; i < kStreams; ++i) {
        clients.push_back(OpenStream(served.port(), "/s"));
        std::this_thread::sleep_for(500us);
    }
    const auto opening = std::chrono::steady_clock::now() + 20s;
    while (opened.load() < kStreams && std::chrono::steady_clock::now() < opening) {
        std::this_thread::sleep_for(10ms);
    }
    REQUIRE(opened.load() == kStreams);
    std::this_thread::sleep_for(3 * kInterval);

    const auto before = OtherThreadsSleeps();
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(3s);
    const auto sleeps = OtherThreadsSleeps() - before;
    const auto intervals = (std::chrono::steady_clock::now() - start) / kInterval;
    // One per interval (30) with one timer per I/O thread. With one timer per stream it was
    // 152-518 on a loaded machine (each stream's own wake-up; fewer only where a late thread found
    // several expired at once, which merges their phases for good).
    INFO(
        sleeps << " sleeps of the server's threads in " << intervals << " intervals with " << kStreams
               << " idle streams"
    );
    CHECK(sleeps <= 2 * intervals);

    // News still goes out, on the next tick at the latest.
    ++news;
    CHECK(ReadUntil(clients.back(), "data: news", 5s).find("data: news") != std::string::npos);

    // A stopping server ends the waiting streams instead of waiting out its grace period.
    const auto stop = std::chrono::steady_clock::now();
    served.Stop();
    while (!served.ran_out() && std::chrono::steady_clock::now() - stop < 5s) {
        std::this_thread::sleep_for(10ms);
    }
    CHECK(served.ran_out());
    for (const int fd : clients) {
        ::close(fd);
    }
}

TEST_CASE("a burst of streams with news does not hold back another connection's request", "[server][streams]") {
    constexpr int kStreams = 300;
    std::atomic<int> news{0};
    std::atomic<int> writes{0};
    std::atomic<bool> began{false};
    std::atomic<int> writes_at_ping{-1};
    orch::server::Router router;
    router.Add("GET", "/s", [&](const orch::server::Request&) {
        return orch::server::Response::Stream("text/event-stream", std::make_shared<BurstStream>(news, writes, began));
    });
    router.Add(
        "GET",
        "/ping",
        [&](const orch::server::Request&) {
            writes_at_ping = writes.load();
            return orch::server::Response::Empty(204);
        },
        {.inline_on_io_thread = true, .name = "ping"}
    );
    orch::server::ServerOptions options;
    options.io_threads = 1;
    Served served(std::move(router), options);
    std::vector<int> clients;
    for (int i = 0; i < kStreams; ++i) {
        clients.push_back(OpenStream(served.port(), "/s"));
    }
    for (const int fd : clients) {
        REQUIRE(ReadUntil(fd, ": open", 10s).find(": open") != std::string::npos);
    }
    const int ping = OpenStream(served.port(), "/ping");  // sent at once: answered before the burst
    REQUIRE(ReadUntil(ping, "204", 5s).find("204") != std::string::npos);
    CHECK(writes_at_ping.load() == 0);

    // Every stream has news at the next tick (300 x 500 µs = 150 ms of the I/O thread); a request
    // sent once the burst has begun is served within it, not after all of it.
    ++news;
    while (!began.load()) {
        std::this_thread::yield();
    }
    const std::string request = "GET /ping HTTP/1.1\r\nHost: t\r\n\r\n";
    REQUIRE(::send(ping, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
    REQUIRE(ReadUntil(ping, "204", 5s).find("204") != std::string::npos);
    INFO(writes_at_ping.load() << " of " << kStreams << " streams written before the request");
    CHECK(writes_at_ping.load() < kStreams / 2);
    for (const int fd : clients) {
        CHECK(ReadUntil(fd, "data: news", 5s).find("data: news") != std::string::npos);
        ::close(fd);
    }
    ::close(ping);
}

TEST_CASE("a stream whose client does not read is dropped with its last words", "[server][streams]") {
    orch::server::Router router;
    router.Add("GET", "/flood", [](const orch::server::Request&) {
        return orch::server::Response::Stream("text/event-stream", std::make_shared<FloodStream>());
    });
    orch::server::ServerOptions options;
    options.stream_buffer_limit = 64u << 10;
    Served served(std::move(router), options);
    const int fd = OpenStream(served.port(), "/flood", 4096);
    std::this_thread::sleep_for(1s);  // the client reads nothing meanwhile
    const auto got = ReadUntil(fd, "", 10s);
    ::close(fd);
    CHECK(got.find("HTTP/1.1 200") == 0);
    CHECK(got.find("event: dropped") != std::string::npos);
}
