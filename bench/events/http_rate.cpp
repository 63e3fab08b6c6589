// bench_http_rate: an open-loop, constant-rate HTTP/1.1 GET client for loopback benchmarks.
//   bench_http_rate --url http://127.0.0.1:PORT/path --rate R --connections N --seconds S
// N threads each keep one keep-alive connection and send every N-th request of a fixed schedule
// (request k is due at start + k/R). A request's latency runs from its *due* time to the last byte
// of its response, so a stall is charged to every request it delays: coordinated omission is
// avoided by construction, without wrk's synthetic samples. Prints one line:
//   rate R req/s achieved A req/s n N p50 X p90 X p99 X p99.9 X max X ms errors E
// and exits 1 when any request failed (connection error, bad framing, non-2xx), 2 on bad usage.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using SteadyClock = std::chrono::steady_clock;
using Failure = std::optional<std::string>;  // nullopt: it worked

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::size_t kMaxBodyBytes = 64 * 1024 * 1024;
constexpr std::size_t kReadChunk = 64 * 1024;
// Every latency is kept (8 bytes each); this bounds the memory at 160 MB.
constexpr double kMaxRequests = 20'000'000;
constexpr int kMaxConnections = 1024;
constexpr double kMaxSeconds = 3600;
constexpr int kIoTimeoutSeconds = 10;    // a hung server fails the request instead of the run
constexpr std::size_t kErrorsShown = 5;  // per connection: the first few are what explains a run

struct Target {
    in_addr address{};
    std::uint16_t port = 0;
    std::string path;
    std::string host_header;  // host:port as given
};

struct Options {
    Target target;
    double rate = 0;
    int connections = 0;
    double seconds = 0;
};

bool IsLoopback(const in_addr& address) {
    return (ntohl(address.s_addr) >> 24U) == 127U;
}

// Only http://<127.x.y.z>:<port>/<path>: this tool must never send traffic off the machine, and a
// path is sent verbatim, so it may hold no byte that could end the request line.
Failure ParseUrl(std::string_view url, Target& target) {
    constexpr std::string_view kScheme = "http://";
    if (!url.starts_with(kScheme)) {
        return "the URL must start with http://";
    }
    url.remove_prefix(kScheme.size());
    const auto slash = url.find('/');
    const std::string_view authority = url.substr(0, slash);
    target.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
    const auto colon = authority.rfind(':');
    if (colon == std::string_view::npos) {
        return "the URL needs an explicit port";
    }
    const std::string host(authority.substr(0, colon));
    const std::string_view port_text = authority.substr(colon + 1);
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535) {
        return "bad port in the URL";
    }
    if (inet_pton(AF_INET, host.c_str(), &target.address) != 1 || !IsLoopback(target.address)) {
        return "the host must be an IPv4 loopback address (127.0.0.0/8)";
    }
    for (const char c : target.path) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
            return "the path holds a space or a control character";
        }
    }
    target.port = static_cast<std::uint16_t>(port);
    target.host_header = std::string(authority);
    return std::nullopt;
}

template <typename T>
Failure ParseNumber(std::string_view text, T& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return "not a number: " + std::string(text);
    }
    return std::nullopt;
}

Failure CheckOptions(const Options& o) {
    if (!(o.rate > 0) || !(o.seconds > 0) || o.seconds > kMaxSeconds) {
        return "--rate must be > 0 and --seconds in (0, 3600]";
    }
    if (o.connections < 1 || o.connections > kMaxConnections) {
        return "--connections must be in [1, 1024]";
    }
    if (o.rate * o.seconds > kMaxRequests) {
        return "rate x seconds exceeds 20,000,000 requests";
    }
    if (o.target.path.empty()) {
        return "--url is required";
    }
    return std::nullopt;
}

Failure ParseArgs(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; i += 2) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc) {
            return "missing value after " + std::string(flag);
        }
        const std::string_view value = argv[i + 1];
        Failure failure;
        if (flag == "--url") {
            failure = ParseUrl(value, o.target);
        } else if (flag == "--rate") {
            failure = ParseNumber(value, o.rate);
        } else if (flag == "--connections") {
            failure = ParseNumber(value, o.connections);
        } else if (flag == "--seconds") {
            failure = ParseNumber(value, o.seconds);
        } else {
            failure = "unknown option " + std::string(flag);
        }
        if (failure) {
            return failure;
        }
    }
    return CheckOptions(o);
}

// --- response framing ---

struct Head {
    int status = 0;
    std::size_t content_length = 0;
    bool close = false;  // the server ends the connection after this response
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
    for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
        if (EqualsIgnoreCase(haystack.substr(i, needle.size()), needle)) {
            return true;
        }
    }
    return false;
}

std::string_view Trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

Failure ParseStatusLine(std::string_view line, Head& head) {
    // "HTTP/1.x NNN reason"
    if (line.size() < 12 || !line.starts_with("HTTP/1.") || line[8] != ' ' || (line.size() > 12 && line[12] != ' ')) {
        return "bad status line";
    }
    return ParseNumber(line.substr(9, 3), head.status);
}

Failure ParseHeaderLine(std::string_view line, Head& head, bool& has_length) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
        return "bad header line";
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
        return "Transfer-Encoding (chunked) responses are not supported";
    }
    if (EqualsIgnoreCase(name, "Connection")) {
        head.close = head.close || ContainsIgnoreCase(value, "close");
    }
    if (!EqualsIgnoreCase(name, "Content-Length")) {
        return std::nullopt;
    }
    std::size_t length = 0;
    if (ParseNumber(value, length) || length > kMaxBodyBytes || (has_length && length != head.content_length)) {
        return "bad, conflicting or too large Content-Length";
    }
    head.content_length = length;
    has_length = true;
    return std::nullopt;
}

// The head without its final blank line: status line, then header lines, CRLF-separated.
Failure ParseHead(std::string_view text, Head& head) {
    auto eol = text.find("\r\n");
    if (auto failure = ParseStatusLine(text.substr(0, eol), head)) {
        return failure;
    }
    bool has_length = false;
    while (eol != std::string_view::npos) {
        text.remove_prefix(eol + 2);
        eol = text.find("\r\n");
        if (auto failure = ParseHeaderLine(text.substr(0, eol), head, has_length)) {
            return failure;
        }
    }
    const bool bodiless = head.status / 100 == 1 || head.status == 204 || head.status == 304;
    if (!has_length && !bodiless) {
        return "a response without Content-Length (only length-framed bodies are supported)";
    }
    return std::nullopt;
}

// --- one keep-alive connection ---

class Connection {
   public:
    explicit Connection(const Target& target) : target_(target) {
        request_ =
            "GET " + target.path + " HTTP/1.1\r\nHost: " + target.host_header + "\r\nAccept: application/json\r\n\r\n";
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() { Close(); }

    // Opens the connection unless it is open.
    Failure Connect() { return fd_ >= 0 ? std::nullopt : Open(); }

    // One request and its whole response; `status` is the response's.
    Failure Exchange(int& status) {
        if (auto failure = Connect()) {
            return failure;
        }
        Head head;
        Failure failure = SendAll();
        if (!failure) {
            failure = ReadResponse(head);
        }
        if (failure || head.close) {
            Close();  // the next request opens a fresh connection
        }
        status = head.status;
        return failure;
    }

   private:
    Failure Open() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ < 0) {
            return Errno("socket");
        }
        // Small requests and responses: Nagle would add up to 40 ms to each.
        const int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        const timeval timeout{.tv_sec = kIoTimeoutSeconds, .tv_usec = 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(target_.port);
        address.sin_addr = target_.address;
        if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
            auto failure = Errno("connect");
            Close();
            return failure;
        }
        buffer_.clear();
        return std::nullopt;
    }

    void Close() {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

    static std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

    Failure SendAll() {
        std::string_view rest = request_;
        while (!rest.empty()) {
            const auto sent = ::send(fd_, rest.data(), rest.size(), MSG_NOSIGNAL);
            if (sent < 0 && errno == EINTR) {
                continue;
            }
            if (sent <= 0) {
                return Errno("send");
            }
            rest.remove_prefix(static_cast<std::size_t>(sent));
        }
        return std::nullopt;
    }

    // Appends what the socket has to buffer_ (at most `limit` bytes in all), or fails.
    Failure Receive(std::size_t limit) {
        char chunk[kReadChunk];
        const std::size_t room = std::min(sizeof chunk, limit - buffer_.size());
        ssize_t got = 0;
        do {
            got = ::recv(fd_, chunk, room, 0);
        } while (got < 0 && errno == EINTR);
        if (got == 0) {
            return "the server closed the connection";
        }
        if (got < 0) {
            return errno == EAGAIN || errno == EWOULDBLOCK ? std::string("no response within 10 s") : Errno("recv");
        }
        buffer_.append(chunk, static_cast<std::size_t>(got));
        return std::nullopt;
    }

    Failure ReadResponse(Head& head) {
        std::size_t head_end = std::string::npos;
        while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
            if (buffer_.size() >= kMaxHeadBytes) {
                return "response head over 64 KiB";
            }
            if (auto failure = Receive(kMaxHeadBytes)) {
                return failure;
            }
        }
        if (auto failure = ParseHead(std::string_view(buffer_).substr(0, head_end), head)) {
            return failure;
        }
        buffer_.erase(0, head_end + 4);
        return SkipBody(head.content_length);
    }

    // The body is only counted, not kept: a bounded buffer whatever its length.
    Failure SkipBody(std::size_t length) {
        while (buffer_.size() < length) {
            length -= buffer_.size();
            buffer_.clear();
            if (auto failure = Receive(std::min(length, kReadChunk))) {
                return failure;
            }
        }
        // Bytes past this response would be an unrequested response: keep them, the next read fails on them.
        buffer_.erase(0, length);
        return std::nullopt;
    }

    const Target& target_;
    std::string request_;
    std::string buffer_;
    int fd_ = -1;
};

// --- the schedule ---

struct Plan {
    SteadyClock::time_point start;
    std::int64_t total = 0;  // requests over all connections
    int connections = 0;
    double rate = 0;
};

struct Outcome {
    std::vector<std::int64_t> latencies_ns;  // successful requests only
    std::vector<std::string> errors;         // the first kErrorsShown messages
    std::size_t error_count = 0;
    SteadyClock::time_point last_end;
};

void RecordError(Outcome& out, std::string message) {
    if (out.errors.size() < kErrorsShown) {
        out.errors.push_back(std::move(message));
    }
    ++out.error_count;
}

// Connection `index` sends requests index, index + N, index + 2N, ... each at its due time; a
// request that is late (the previous one was slow) goes at once, and its wait counts.
void RunConnection(const Target& target, const Plan& plan, int index, Outcome& out) {
    Connection connection(target);
    out.latencies_ns.reserve(static_cast<std::size_t>(plan.total / plan.connections + 1));
    // Connect before the first request is due, so no latency includes the handshake; a failure
    // here is counted, and the first request tries again.
    if (auto failure = connection.Connect()) {
        RecordError(out, *failure);
    }
    for (std::int64_t k = index; k < plan.total; k += plan.connections) {
        const auto due =
            plan.start +
            std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(k / plan.rate));
        std::this_thread::sleep_until(due);
        int status = 0;
        const Failure failure = connection.Exchange(status);
        out.last_end = SteadyClock::now();
        if (failure) {
            RecordError(out, *failure);
        } else if (status / 100 != 2) {
            RecordError(out, "HTTP status " + std::to_string(status));
        } else {
            out.latencies_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(out.last_end - due).count()
            );
        }
    }
}

// --- the summary ---

double PercentileMs(const std::vector<std::int64_t>& sorted, double percent) {
    if (sorted.empty()) {
        return 0;
    }
    // Nearest rank: the smallest sample with at least `percent` % of the samples at or below it.
    const auto rank = static_cast<std::size_t>(std::ceil(percent / 100.0 * static_cast<double>(sorted.size())));
    return static_cast<double>(sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1]) / 1e6;
}

std::size_t Report(const Plan& plan, std::vector<Outcome>& outcomes) {
    std::vector<std::int64_t> all;
    std::size_t errors = 0;
    auto last_end = plan.start;
    for (auto& o : outcomes) {
        all.insert(all.end(), o.latencies_ns.begin(), o.latencies_ns.end());
        errors += o.error_count;
        last_end = std::max(last_end, o.last_end);
        for (const auto& message : o.errors) {
            std::fprintf(stderr, "bench_http_rate: error: %s\n", message.c_str());
        }
    }
    std::sort(all.begin(), all.end());
    const double elapsed = std::chrono::duration<double>(last_end - plan.start).count();
    const double achieved = elapsed > 0 ? static_cast<double>(all.size()) / elapsed : 0;
    std::printf(
        "rate %.7g req/s achieved %.0f req/s n %zu p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f ms errors %zu\n",
        plan.rate,
        achieved,
        all.size(),
        PercentileMs(all, 50),
        PercentileMs(all, 90),
        PercentileMs(all, 99),
        PercentileMs(all, 99.9),
        PercentileMs(all, 100),
        errors
    );
    return errors;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (auto failure = ParseArgs(argc, argv, options)) {
        std::fprintf(
            stderr,
            "bench_http_rate: %s\nusage: bench_http_rate --url http://127.0.0.1:PORT/path --rate R "
            "--connections N --seconds S\n",
            failure->c_str()
        );
        return 2;
    }
    // Connections open in the first 100 ms, before the first request is due.
    const Plan plan{
        .start = SteadyClock::now() + std::chrono::milliseconds(100),
        .total = std::llround(options.rate * options.seconds),
        .connections = options.connections,
        .rate = options.rate};
    std::vector<Outcome> outcomes(static_cast<std::size_t>(options.connections));
    std::vector<std::thread> threads;
    threads.reserve(outcomes.size());
    for (int i = 0; i < options.connections; ++i) {
        threads.emplace_back(
            RunConnection,
            std::cref(options.target),
            std::cref(plan),
            i,
            std::ref(outcomes[static_cast<std::size_t>(i)])
        );
    }
    for (auto& t : threads) {
        t.join();
    }
    const std::size_t errors = Report(plan, outcomes);
    return errors == 0 && plan.total > 0 ? 0 : 1;
}
