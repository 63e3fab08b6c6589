#pragma once

#include "common/result.hpp"
#include "orchestrator/server/request_checks.hpp"
#include "orchestrator/server/router.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace orch::server {

struct ServerOptions {
    std::string listen = "127.0.0.1:8080";             ///< host:port; port 0 picks a free one
    std::size_t body_limit = 10u << 20;                ///< larger bodies get 413
    std::size_t header_limit = 64u << 10;              ///< larger headers get 431
    std::chrono::milliseconds header_timeout{10'000};  ///< time to receive a request's headers
    std::chrono::milliseconds body_timeout{60'000};    ///< time to receive the whole request
    std::chrono::milliseconds idle_timeout{60'000};    ///< keep-alive connection without a request
    std::chrono::milliseconds write_timeout{30'000};
    std::chrono::milliseconds shutdown_grace{10'000};  ///< in-flight requests get this long on stop
    /// A streamed response (SSE) whose client leaves more than this many bytes unsent in its
    /// socket is ended with the stream's last words (ResponseStream::Dropped).
    std::size_t stream_buffer_limit = 256u << 10;
    /// Each runs its own io_context. One parses and writes far more HTTP than the database can
    /// answer; a second only adds wake-ups (bench/api, docs/api.md "List throughput").
    int io_threads = 1;
    int worker_threads = 8;                  ///< blocking handlers run here
    std::size_t max_queued_requests = 1024;  ///< beyond this: 503 at once
    std::size_t max_connections = 10'000;
    bool access_log = true;
    /// Peers whose Forwarded/X-Forwarded-* headers are believed (server.trusted_proxies);
    /// from anyone else those headers are dropped before routing.
    ProxyTrust trusted_proxies;
};

/// Observes every finished request (metrics); called on the thread that produced the response.
/// `route` is the matched route's pattern ("/deployments/{id}"), never the raw path, or
/// "unmatched" — so label sets stay bounded whatever clients send.
using RequestObserver =
    std::function<void(const Request&, const Response&, const std::string& route, std::chrono::microseconds elapsed)>;

/// Beast + C++20 coroutines HTTP/1.1 server. I/O threads parse and write; handlers run on a
/// separate worker pool unless a route is marked inline. Every response carries X-Request-ID;
/// every error has the {code,title,message} body.
class HttpServer {
   public:
    HttpServer(ServerOptions options, const Router& router);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    void SetObserver(RequestObserver observer);

    /// Binds and listens; the port is known afterwards. Fails with a clear message (address in use...).
    Status Start();
    /// The bound port (after Start).
    int port() const;
    /// Serves on the I/O threads until Stop(); returns when everything has drained.
    void Run();
    /// Graceful: stop accepting, let in-flight requests finish (up to shutdown_grace), close idle
    /// connections, then make Run() return. Safe from any thread and from signal watchers.
    void Stop();

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace orch::server
