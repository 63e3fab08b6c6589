#pragma once

#include <common/http_client.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace orch::test {

/// One request as a fixture saw it (tests assert on paths and headers, e.g. no token to the CMDB).
struct FixtureRequest {
    std::string method;
    std::string path;   ///< decoded path, without the query
    std::string query;  ///< raw query text after '?'
    http::Headers headers;
    std::string body;

    std::string Header(std::string_view name) const { return http::FindHeader(headers, name); }
};

struct FixtureResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
};

using FixtureHandler = std::function<FixtureResponse(const FixtureRequest&)>;

/// What a fixture serves: directories mounted under URL prefixes (GET <prefix>/a/b answers the
/// file <dir>/a/b.json, else <dir>/a/b), exact routes, and simulated outages. Thread-safe, and
/// changeable while a server uses it. Header-only so unit tests can use it without sockets.
class FixtureRoutes {
   public:
    void Mount(std::string prefix, std::string directory) {
        const std::lock_guard lock(mutex_);
        mounts_.emplace_back(Trim(std::move(prefix)), std::move(directory));
    }
    void Route(std::string method, std::string path, FixtureHandler handler) {
        const std::lock_guard lock(mutex_);
        routes_[{std::move(method), std::move(path)}] = std::move(handler);
    }
    /// Every request under `prefix` answers `status` (0 removes the outage).
    void Fail(std::string prefix, int status) {
        const std::lock_guard lock(mutex_);
        if (status == 0) {
            failures_.erase(prefix);
        } else {
            failures_[std::move(prefix)] = status;
        }
    }

    FixtureResponse Handle(const FixtureRequest& request) {
        FixtureHandler handler;
        std::vector<std::pair<std::string, std::string>> mounts;
        {
            const std::lock_guard lock(mutex_);
            requests_.push_back(request);
            for (const auto& [prefix, status] : failures_) {
                if (request.path.rfind(prefix, 0) == 0) {
                    return {status, "application/json", R"({"error":"simulated outage"})"};
                }
            }
            if (const auto it = routes_.find({request.method, request.path}); it != routes_.end()) {
                handler = it->second;
            }
            mounts = mounts_;
        }
        if (handler) {
            return handler(request);
        }
        if (request.method == "GET" && request.path.find("..") == std::string::npos) {
            for (const auto& [prefix, directory] : mounts) {
                if (request.path.rfind(prefix + "/", 0) != 0 && !(prefix.empty() && !request.path.empty())) {
                    continue;
                }
                const std::string rest = request.path.substr(prefix.size());
                for (const std::string& candidate : {directory + rest + ".json", directory + rest}) {
                    if (std::filesystem::is_regular_file(candidate)) {
                        std::ifstream in(candidate, std::ios::binary);
                        std::ostringstream body;
                        body << in.rdbuf();
                        return {200, "application/json", body.str()};
                    }
                }
            }
        }
        return {404, "application/json", R"({"error":"not found"})"};
    }

    std::vector<FixtureRequest> Requests() const {
        const std::lock_guard lock(mutex_);
        return requests_;
    }

   private:
    static std::string Trim(std::string prefix) {
        while (!prefix.empty() && prefix.back() == '/') {
            prefix.pop_back();
        }
        return prefix;
    }

    mutable std::mutex mutex_;
    std::vector<std::pair<std::string, std::string>> mounts_;
    std::map<std::pair<std::string, std::string>, FixtureHandler> routes_;
    std::map<std::string, int> failures_;
    std::vector<FixtureRequest> requests_;
};

/// An http::Client that answers from FixtureRoutes in-process: unit tests exercise the real wire
/// parsing without sockets. Any host is accepted; a host named "unreachable" fails like a refused
/// connection.
class FixtureClient : public http::Client {
   public:
    explicit FixtureClient(std::shared_ptr<FixtureRoutes> routes) : routes_(std::move(routes)) {}

    Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
        auto url = http::ParseUrl(request.url);
        if (!url) {
            return std::move(url).error();
        }
        if (url->host == "unreachable") {
            return Error::Unavailable("connection refused: " + url->host);
        }
        FixtureRequest seen;
        seen.method = request.method;
        const auto q = url->target.find('?');
        seen.path = http::UrlDecode(url->target.substr(0, q), false);
        seen.query = q == std::string::npos ? "" : url->target.substr(q + 1);
        seen.headers = request.headers;
        seen.body = request.body;
        const FixtureResponse answer = routes_->Handle(seen);
        if (answer.body.size() > request.max_response_bytes) {
            return Error::ResourceExhausted(
                "response larger than " + std::to_string(request.max_response_bytes) + " bytes"
            );
        }
        return http::ClientResponse{answer.status, {{"Content-Type", answer.content_type}}, answer.body};
    }

   private:
    std::shared_ptr<FixtureRoutes> routes_;
};

/// A real HTTP/1.1 server (Boost.Beast) on 127.0.0.1 and a kernel-chosen port, serving
/// FixtureRoutes from a background thread until Stop() or destruction.
class FixtureHttpServer {
   public:
    explicit FixtureHttpServer(std::shared_ptr<FixtureRoutes> routes);
    ~FixtureHttpServer();
    FixtureHttpServer(const FixtureHttpServer&) = delete;
    FixtureHttpServer& operator=(const FixtureHttpServer&) = delete;

    int port() const;
    std::string url() const;  ///< http://127.0.0.1:<port>
    FixtureRoutes& routes() { return *routes_; }
    void Stop();

   private:
    class Impl;
    std::shared_ptr<FixtureRoutes> routes_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace orch::test
