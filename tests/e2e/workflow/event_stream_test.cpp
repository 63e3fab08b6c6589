// The event stream with the real binary, real PostgreSQL and simulated Marathon sites: a
// deployment's stream shows each step in order through CREATE_COMPLETE, and a client that
// disconnects and reconnects with Last-Event-ID (to the other replica) gets exactly what it
// missed: the log is in the database, not in the process that ran the workflow.
#include "reliability_harness.hpp"
#include "test_support/process.hpp"
#include "test_support/raw_http.hpp"
#include "test_support/test_env.hpp"

#include <catch2/catch.hpp>

#include <functional>

namespace {

using orch::Json;
using orch::reliability::Send;

struct SseEvent {
    std::int64_t id = 0;
    std::string type;
    Json data;
};

// Reads an SSE response on a raw socket: undoes the chunked framing, splits events at blank
// lines, and stops when `done` says so, the server closes, or `timeout` passes.
class SseClient {
   public:
    SseClient(int port, const std::string& path, const std::string& last_event_id = "") {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);  // NOLINT: sockets API
        std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n";
        if (!last_event_id.empty()) {
            req += "Last-Event-ID: " + last_event_id + "\r\n";
        }
        req += "\r\n";
        REQUIRE(::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size()));
    }
    ~SseClient() { ::close(fd_); }
    SseClient(const SseClient&) = delete;
    SseClient& operator=(const SseClient&) = delete;

    std::vector<SseEvent> ReadUntil(
        const std::function<bool(const std::vector<SseEvent>&)>& done, std::chrono::milliseconds timeout
    ) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        char buf[8192];
        while (!done(events_) && std::chrono::steady_clock::now() < deadline) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) {
                continue;
            }
            const auto n = ::recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) {
                break;
            }
            raw_.append(buf, static_cast<std::size_t>(n));
            Parse();
        }
        return events_;
    }
    const std::string& head() const { return head_; }

   private:
    void Parse() {
        if (head_.empty()) {
            const auto end = raw_.find("\r\n\r\n");
            if (end == std::string::npos) {
                return;
            }
            head_ = raw_.substr(0, end);
            raw_.erase(0, end + 4);
        }
        for (;;) {  // chunks: <hex>\r\n<bytes>\r\n
            const auto line = raw_.find("\r\n");
            if (line == std::string::npos) {
                break;
            }
            const std::size_t size = std::stoul(raw_.substr(0, line), nullptr, 16);
            if (raw_.size() < line + 2 + size + 2) {
                break;
            }
            body_ += raw_.substr(line + 2, size);
            raw_.erase(0, line + 2 + size + 2);
        }
        for (auto end = body_.find("\n\n"); end != std::string::npos; end = body_.find("\n\n")) {
            const std::string block = body_.substr(0, end);
            body_.erase(0, end + 2);
            SseEvent e;
            std::size_t pos = 0;
            while (pos < block.size()) {
                auto nl = block.find('\n', pos);
                if (nl == std::string::npos) {
                    nl = block.size();
                }
                const std::string field = block.substr(pos, nl - pos);
                if (field.rfind("id: ", 0) == 0) {
                    e.id = std::stoll(field.substr(4));
                } else if (field.rfind("event: ", 0) == 0) {
                    e.type = field.substr(7);
                } else if (field.rfind("data: ", 0) == 0) {
                    e.data = Json::parse(field.substr(6));
                }
                pos = nl + 1;
            }
            if (!e.type.empty()) {
                events_.push_back(std::move(e));
            }
        }
    }

    int fd_ = -1;
    std::string raw_, head_, body_;
    std::vector<SseEvent> events_;
};

bool Has(const std::vector<SseEvent>& events, const std::string& type) {
    return std::any_of(events.begin(), events.end(), [&](const SseEvent& e) { return e.type == type; });
}

std::vector<std::string> Types(const std::vector<SseEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) {
        out.push_back(e.type);
    }
    return out;
}

std::unique_ptr<orch::test::OrchestratorProcess> Replica(
    const std::string& dsn, const std::string& config, const std::string& id
) {
    return std::make_unique<orch::test::OrchestratorProcess>(
        dsn, std::map<std::string, std::string>{{"ORCHESTRATOR_INSTANCE_ID", id}}, config
    );
}

}  // namespace

TEST_CASE("a Marathon deployment's event stream shows each step in order through CREATE_COMPLETE", "[e2e][events]") {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    auto orchestrator = Replica(db.dsn(), sites.WriteConfig(), "events-a");
    REQUIRE(orch::test::WaitForStatus(orchestrator->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    const auto created = Send("POST", orchestrator->BaseUrl() + "/deployments", orch::reliability::SmallCreateBody());
    REQUIRE(created.status == 201);
    const std::string id = created.body.at("uuid").get<std::string>();

    SseClient stream(orchestrator->port(), "/deployments/" + id + "/events");
    const auto events = stream.ReadUntil(
        [](const auto& got) { return Has(got, "completed") || Has(got, "failed"); }, std::chrono::seconds(60)
    );
    INFO(stream.head());
    CHECK(stream.head().find("Content-Type: text/event-stream") != std::string::npos);
    REQUIRE(Has(events, "completed"));
    // Each step once, in order (site messages and polling may come between them).
    const std::vector<std::string> steps{"placement", "attempt_started", "attempt_ended", "completed"};
    std::size_t next = 0;
    for (const auto& type : Types(events)) {
        if (next < steps.size() && type == steps[next]) {
            ++next;
        }
    }
    CHECK(next == steps.size());
    CHECK(events.front().type == "progress");
    CHECK(events.front().data["data"]["statusReason"] == "Validated; placing");
    for (std::size_t i = 1; i < events.size(); ++i) {
        CHECK(events[i - 1].id < events[i].id);
        CHECK(events[i].data["deploymentId"] == id);
    }
    CHECK(events.back().data["data"]["status"] == "CREATE_COMPLETE");
}

TEST_CASE(
    "a client that reconnects with Last-Event-ID to the other replica gets exactly the events it missed",
    "[e2e][events][replicas]"
) {
    orch::test::TestDatabase db;
    orch::reliability::TwoSites sites;
    const std::string config = sites.WriteConfig();
    auto a = Replica(db.dsn(), config, "events-a");
    auto b = Replica(db.dsn(), config, "events-b");
    REQUIRE(orch::test::WaitForStatus(a->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    REQUIRE(orch::test::WaitForStatus(b->BaseUrl() + "/readyz", 200, std::chrono::seconds(20)));
    const auto created = Send("POST", a->BaseUrl() + "/deployments", orch::reliability::SmallCreateBody());
    REQUIRE(created.status == 201);
    const std::string id = created.body.at("uuid").get<std::string>();

    // On A, read the first two events, then go away while the workflow goes on.
    std::vector<SseEvent> before;
    {
        SseClient first(a->port(), "/deployments/" + id + "/events");
        before = first.ReadUntil([](const auto& got) { return got.size() >= 2; }, std::chrono::seconds(30));
    }
    REQUIRE(before.size() >= 2);
    const auto statuses = orch::reliability::WaitAllTerminal(a->BaseUrl(), std::chrono::seconds(60));
    REQUIRE(statuses.at(id) == "CREATE_COMPLETE");

    // The whole log of the deployment, as a fresh client on B sees it.
    SseClient whole(b->port(), "/deployments/" + id + "/events");
    const auto all = whole.ReadUntil([](const auto& got) { return Has(got, "completed"); }, std::chrono::seconds(30));
    REQUIRE(Has(all, "completed"));

    // Resuming on B after the last event seen on A: exactly the rest, none twice, none missing.
    SseClient resumed(b->port(), "/deployments/" + id + "/events", std::to_string(before.back().id));
    const auto rest =
        resumed.ReadUntil([](const auto& got) { return Has(got, "completed"); }, std::chrono::seconds(30));
    std::vector<std::int64_t> seen;
    for (const auto& e : before) {
        seen.push_back(e.id);
    }
    for (const auto& e : rest) {
        seen.push_back(e.id);
    }
    std::vector<std::int64_t> expected;
    for (const auto& e : all) {
        expected.push_back(e.id);
    }
    CHECK(seen == expected);

    // GET /events (every deployment the caller may see) resumes the same way.
    SseClient everything(b->port(), "/events?lastEventId=" + std::to_string(before.back().id));
    const auto rest_all =
        everything.ReadUntil([](const auto& got) { return Has(got, "completed"); }, std::chrono::seconds(30));
    CHECK(Types(rest_all) == Types(rest));
}
