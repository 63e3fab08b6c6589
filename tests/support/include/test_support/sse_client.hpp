#pragma once

// A Server-Sent Events client on a raw socket for e2e tests: undoes the chunked framing, splits
// events at blank lines, parses each `data:` line as JSON. Header-only, like raw_http.hpp.
#include "test_support/raw_http.hpp"

#include <common/json.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace orch::test {

struct SseEvent {
    std::int64_t id = 0;
    std::string type;
    orch::Json data;
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
                    e.data = orch::Json::parse(field.substr(6));
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

inline bool Has(const std::vector<SseEvent>& events, const std::string& type) {
    return std::any_of(events.begin(), events.end(), [&](const SseEvent& e) { return e.type == type; });
}

inline std::vector<std::string> Types(const std::vector<SseEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) {
        out.push_back(e.type);
    }
    return out;
}

}  // namespace orch::test
