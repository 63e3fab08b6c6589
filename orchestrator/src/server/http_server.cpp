#include "orchestrator/server/http_server.hpp"

#include "common/log.hpp"
#include "common/trace_context.hpp"
#include "common/uuid.hpp"
#include "http_stream.hpp"
#include "orchestrator/server/request_checks.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

namespace orch::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;  // NOLINT(readability-identifier-naming): Asio's own name
constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

std::string NewRequestId() {
    return "req-" + UniqueUuid();
}

// Per-connection state shared between the session coroutine and Stop(), which must close
// idle connections; all access to `stream` happens on the connection's strand.
struct Connection {
    explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
    beast::tcp_stream stream;
    bool busy = false;  // a request is being handled; do not close under it
};

Request ToRequest(bhttp::request<bhttp::string_body>&& raw, std::string request_id, std::string remote) {
    Request req;
    req.method = std::string(raw.method_string());
    req.target = std::string(raw.target());
    const auto q = req.target.find('?');
    req.path = http::UrlDecode(std::string_view(req.target).substr(0, q), false);
    if (q != std::string::npos) {
        req.query = ParseQuery(std::string_view(req.target).substr(q + 1));
    }
    for (const auto& field : raw) {
        req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    req.body = std::move(raw.body());
    req.request_id = std::move(request_id);
    req.remote_address = std::move(remote);
    // The caller's trace when its traceparent is valid, else a new one (an invalid header is
    // ignored, as the W3C specification asks, never refused).
    if (auto parent = trace::ParseTraceparent(req.Header("traceparent"))) {
        req.trace_id = std::move(parent->trace_id);
        req.trace_sampled = parent->sampled;
    } else {
        req.trace_id = trace::NewTraceId();
    }
    return req;
}

// Takes the response by value: its body moves into the message instead of being copied.
bhttp::response<bhttp::string_body> ToBeast(
    Response res, const std::string& request_id, bool keep_alive, unsigned version
) {
    bhttp::response<bhttp::string_body> out;
    out.version(version);
    out.result(static_cast<unsigned>(res.status));
    out.set(bhttp::field::server, "indigo-orchestrator");
    out.set("X-Request-ID", request_id);
    if (!res.content_type.empty()) {
        out.set(bhttp::field::content_type, res.content_type);
    }
    for (const auto& [name, value] : res.headers) {
        out.insert(name, value);
    }
    out.body() = std::move(res.body);
    out.keep_alive(keep_alive);
    out.prepare_payload();
    return out;
}

}  // namespace

struct HttpServer::Impl {
    Impl(ServerOptions opts, const Router& r)
        : options(std::move(opts)),
          router(r),
          io(MakeIoContexts(options.io_threads)),
          ioc(*io.front()),
          acceptor(ioc),
          workers(static_cast<std::size_t>(std::max(1, options.worker_threads))) {}

    // One io_context per I/O thread, each connection on one of them: handlers never pass
    // between I/O threads. With one io_context shared by two threads, every request cost a
    // futex wake-up of the other thread (2.9 context switches per list request instead of 1.7,
    // docs/api.md "List throughput"). Hint 1: each is run by one thread; posts from the worker
    // pool stay safe (the hint only skips work for a single runner, not the locking).
    static std::vector<std::unique_ptr<asio::io_context>> MakeIoContexts(int threads) {
        std::vector<std::unique_ptr<asio::io_context>> out;
        for (int i = 0; i < std::max(1, threads); ++i) {
            out.push_back(std::make_unique<asio::io_context>(1));
        }
        return out;
    }
    static std::vector<std::unique_ptr<StreamPacer>> MakePacers(
        const std::vector<std::unique_ptr<asio::io_context>>& contexts, const std::atomic<bool>& stopping
    ) {
        std::vector<std::unique_ptr<StreamPacer>> out;
        out.reserve(contexts.size());
        for (const auto& context : contexts) {
            out.push_back(std::make_unique<StreamPacer>(*context, stopping));
        }
        return out;
    }
    // The pacer of the I/O thread that runs `executor` (a connection's strand).
    StreamPacer& PacerOf(const asio::any_io_executor& executor) {
        const auto& context = asio::query(executor, asio::execution::context);
        for (std::size_t i = 0; i < io.size(); ++i) {
            if (io[i].get() == &context) {
                return *pacers[i];
            }
        }
        return *pacers.front();  // not reached: every connection runs on one of `io`
    }
    asio::io_context& NextConnectionContext() { return *io[next_io.fetch_add(1) % io.size()]; }

    ServerOptions options;
    const Router& router;
    std::vector<std::unique_ptr<asio::io_context>> io;
    asio::io_context& ioc;  // the first one: the acceptor's, and where Stop() is posted
    std::atomic<std::size_t> next_io{0};
    tcp::acceptor acceptor;
    asio::thread_pool workers;
    RequestObserver observer;
    std::atomic<bool> stopping{false};
    // One per io_context, in the same order; after `io`, so destroyed before it (their timers
    // are the io_contexts' objects).
    std::vector<std::unique_ptr<StreamPacer>> pacers = MakePacers(io, stopping);
    std::atomic<std::size_t> queued{0};
    std::atomic<std::size_t> connections{0};
    std::mutex conn_mutex;
    std::set<std::shared_ptr<Connection>> live;  // for closing idle connections on Stop
    std::condition_variable drain_changed;       // Stop() was called, or a connection ended
    int bound_port = 0;

    asio::awaitable<void> Accept();
    asio::awaitable<void> Serve(std::shared_ptr<Connection> conn);
    asio::awaitable<bool> ReadOne(Connection& conn, beast::flat_buffer& buffer);
    asio::awaitable<std::optional<Response>> Dispatch(Request request, const Router::Route* route);
    asio::awaitable<void> WriteResponse(
        Connection& conn, Response res, const std::string& id, bool keep_alive, unsigned version
    );
    asio::awaitable<void> RejectAndClose(Connection& conn, int status, std::string_view message);
    void Observe(
        const Request& req,
        const Response& res,
        const std::string& route,
        const std::string& pattern,
        std::chrono::steady_clock::time_point start
    );
};

// Runs a blocking handler on the worker pool. A free function with by-value parameters (not a
// capturing lambda) so nothing it uses can dangle while the coroutine is suspended (CP.51).
// nullopt: a dropping handler (Router::AddDropping) answered nothing.
static asio::awaitable<std::optional<Response>> RunHandler(const Router::Route* route, Request request) {
    const log::ScopedContext ctx(request.request_id, "");
    const trace::ScopedTrace trace(request.trace_id, request.trace_sampled);
    try {
        if (route->dropping_handler) {
            co_return route->dropping_handler(request);
        }
        co_return route->handler(request);
    } catch (const std::exception& e) {
        // The exception's text is internal: it goes to the log (Response::Error logs 500s with
        // the request id), the client gets a generic message.
        ORCH_LOG_ERROR("handler failed", {{"path", request.path}});
        co_return Response::Error(Error::Internal("handler failed").WithLogMessage(e.what()));
    }
}

asio::awaitable<std::optional<Response>> HttpServer::Impl::Dispatch(Request request, const Router::Route* route) {
    if (route->options.inline_on_io_thread) {
        co_return co_await RunHandler(route, std::move(request));
    }
    // Bounded queue: past the limit we answer at once instead of letting latency grow unbounded.
    if (queued.fetch_add(1) >= options.max_queued_requests) {
        queued.fetch_sub(1);
        co_return Response::ErrorWithStatus(503, "The server is overloaded; retry later")
            .WithHeader("Retry-After", "1");
    }
    auto res = co_await asio::co_spawn(workers, RunHandler(route, std::move(request)), asio::use_awaitable);
    queued.fetch_sub(1);
    co_return res;
}

void HttpServer::Impl::Observe(
    const Request& req,
    const Response& res,
    const std::string& route,
    const std::string& pattern,
    std::chrono::steady_clock::time_point start
) {
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    if (observer) {
        observer(req, res, pattern, elapsed);
    }
    if (options.access_log || res.status >= 500) {
        const log::ScopedContext ctx(req.request_id, "");
        const trace::ScopedTrace trace(req.trace_id, req.trace_sampled);
        ORCH_LOG(
            res.status >= 500 ? log::Level::kWarn : log::Level::kInfo,
            "request",
            {{"method", req.method},
             {"path", req.path},
             {"route", route},
             {"status", res.status},
             {"duration_ms", static_cast<double>(elapsed.count()) / 1000.0}}
        );
    }
}

asio::awaitable<void> HttpServer::Impl::WriteResponse(
    Connection& conn, Response res, const std::string& id, bool keep_alive, unsigned version
) {
    auto out = ToBeast(std::move(res), id, keep_alive, version);
    conn.stream.expires_after(options.write_timeout);
    co_await bhttp::async_write(conn.stream, out, kUseTuple);
}

asio::awaitable<void> HttpServer::Impl::RejectAndClose(Connection& conn, int status, std::string_view message) {
    co_await WriteResponse(conn, Response::ErrorWithStatus(status, message), NewRequestId(), false, 11);
    // Half-close, then drain what the client is still sending (bounded), so the kernel does not
    // answer the unread bytes with a reset that would destroy our error response in flight.
    beast::error_code ec;
    conn.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    conn.stream.expires_after(std::chrono::seconds(2));
    std::array<char, 16384> sink{};
    std::size_t drained = 0;
    while (drained < (64u << 20)) {
        auto [rec, n] = co_await conn.stream.async_read_some(asio::buffer(sink), kUseTuple);
        if (rec) {
            break;
        }
        drained += n;
    }
}

asio::awaitable<void> HttpServer::Impl::Serve(std::shared_ptr<Connection> conn) {
    beast::flat_buffer buffer;
    std::string remote;
    {
        beast::error_code ec;
        const auto ep = conn->stream.socket().remote_endpoint(ec);
        remote = ec ? std::string() : ep.address().to_string();
    }
    while (!stopping.load()) {
        bhttp::request_parser<bhttp::string_body> parser;
        parser.header_limit(static_cast<std::uint32_t>(options.header_limit));
        parser.body_limit(options.body_limit);
        if (buffer.size() == 0) {
            // Idle keep-alive: wait for the first byte of the next request under the idle timeout;
            // from then on the whole header must arrive within header_timeout, so a client
            // dribbling bytes (slow loris) cannot hold the connection for idle_timeout per byte.
            conn->stream.expires_after(options.idle_timeout);
            auto [fec, fn] = co_await conn->stream.async_read_some(buffer.prepare(4096), kUseTuple);
            if (fec) {
                break;
            }
            buffer.commit(fn);
        }
        conn->stream.expires_after(options.header_timeout);
        auto [hec, hn] = co_await bhttp::async_read_header(conn->stream, buffer, parser, kUseTuple);
        if (hec == bhttp::error::header_limit) {
            co_await RejectAndClose(*conn, 431, "Request header fields too large");
            break;
        }
        if (hec == bhttp::error::body_limit) {
            co_await RejectAndClose(
                *conn, 413, "Request body larger than " + std::to_string(options.body_limit) + " bytes"
            );
            break;
        }
        if (hec == beast::error::timeout) {
            co_await RejectAndClose(*conn, 408, "Request headers not received in time");
            break;
        }
        if (hec) {
            if (hec != bhttp::error::end_of_stream && hec != beast::error::timeout &&
                hec != asio::error::operation_aborted && hec != asio::error::connection_reset &&
                hec != asio::error::eof) {
                co_await RejectAndClose(*conn, 400, "Malformed HTTP request: " + hec.message());
            }
            break;
        }
        conn->busy = true;
        const bool expect_continue = parser.get()[bhttp::field::expect] == "100-continue";
        if (expect_continue) {
            bhttp::response<bhttp::empty_body> cont{bhttp::status::continue_, parser.get().version()};
            conn->stream.expires_after(options.write_timeout);
            co_await bhttp::async_write(conn->stream, cont, kUseTuple);
        }
        // A request without a body (every GET) is complete with its header: no body read, so
        // no timer change and no extra trip through the scheduler for an empty read.
        beast::error_code bec;
        if (!parser.is_done()) {
            conn->stream.expires_after(options.body_timeout);
            auto [read_ec, bn] = co_await bhttp::async_read(conn->stream, buffer, parser, kUseTuple);
            bec = read_ec;
        }
        if (bec == bhttp::error::body_limit) {
            co_await RejectAndClose(
                *conn, 413, "Request body larger than " + std::to_string(options.body_limit) + " bytes"
            );
            break;
        }
        if (bec) {
            if (bec != beast::error::timeout && bec != asio::error::operation_aborted && bec != asio::error::eof &&
                bec != asio::error::connection_reset) {
                co_await RejectAndClose(*conn, 400, "Malformed HTTP request: " + bec.message());
            } else if (bec == beast::error::timeout) {
                co_await RejectAndClose(*conn, 408, "Request not received in time");
            }
            break;
        }
        const auto start = std::chrono::steady_clock::now();
        auto raw = parser.release();
        const bool keep_alive = raw.keep_alive() && !stopping.load();
        const unsigned version = raw.version();
        Request request = ToRequest(std::move(raw), NewRequestId(), remote);
        ApplyProxyTrust(request, options.trusted_proxies);
        const std::string request_id = request.request_id;
        if (auto checked = CheckRequest(request); !checked) {
            // Ambiguous framing or text: answer and close, the rest of the stream is suspect.
            Response refused = Response::Error(checked.error());
            Observe(request, refused, "unmatched", "unmatched", start);
            co_await WriteResponse(*conn, std::move(refused), request_id, false, version);
            break;
        }
        auto match = router.Find(request.method, request.path);
        Response res;
        bool drop = false;  // the handler answered nothing: close the connection (test doubles)
        std::string route_name = "unmatched";
        if (match.route == nullptr) {
            if (!match.allowed_methods.empty()) {
                res = Response::ErrorWithStatus(405, "Request method '" + request.method + "' not supported");
                std::string allow;
                for (const auto& m : match.allowed_methods) {
                    allow += (allow.empty() ? "" : ", ") + m;
                }
                res.WithHeader("Allow", allow);
            } else {
                res = Response::ErrorWithStatus(404, "No handler found for " + request.method + " " + request.path);
            }
            Observe(request, res, route_name, route_name, start);
        } else {
            route_name = match.route->options.name;
            const std::string pattern = match.route->pattern;
            request.path_params = std::move(match.params);
            Request copy_for_log;
            copy_for_log.method = request.method;
            copy_for_log.path = request.path;
            copy_for_log.request_id = request.request_id;
            copy_for_log.trace_id = request.trace_id;
            copy_for_log.trace_sampled = request.trace_sampled;
            auto answer = co_await Dispatch(std::move(request), match.route);
            drop = !answer.has_value();
            res = drop ? Response() : std::move(*answer);
            Observe(copy_for_log, res, route_name, pattern, start);
        }
        if (drop) {
            break;
        }
        if (res.stream) {
            const StreamContext context{options, workers, stopping, PacerOf(conn->stream.get_executor())};
            co_await WriteStream(context, conn->stream, std::move(res), request_id, version);
            break;  // a stream ends its connection
        }
        co_await WriteResponse(*conn, std::move(res), request_id, keep_alive, version);
        conn->busy = false;
        if (!keep_alive) {
            break;
        }
    }
    beast::error_code ec;
    conn->stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    conn->stream.close();
}

asio::awaitable<void> HttpServer::Impl::Accept() {
    while (!stopping.load()) {
        auto [ec, socket] = co_await acceptor.async_accept(asio::make_strand(NextConnectionContext()), kUseTuple);
        if (ec) {
            if (stopping.load() || ec == asio::error::operation_aborted) {
                break;
            }
            // Out of descriptors or a transient accept failure: log, pause briefly, go on.
            ORCH_LOG_WARN("accept failed", {{"error", ec.message()}});
            asio::steady_timer pause(ioc, std::chrono::milliseconds(50));
            co_await pause.async_wait(kUseTuple);
            continue;
        }
        if (connections.load() >= options.max_connections) {
            beast::error_code ignored;
            socket.close(ignored);
            continue;
        }
        socket.set_option(tcp::no_delay(true));
        auto conn = std::make_shared<Connection>(std::move(socket));
        {
            const std::lock_guard lock(conn_mutex);
            live.insert(conn);
        }
        connections.fetch_add(1);
        auto executor = conn->stream.get_executor();
        asio::co_spawn(executor, Serve(conn), [this, conn](const std::exception_ptr& error) {
            if (error) {
                try {
                    std::rethrow_exception(error);
                } catch (const std::exception& e) {
                    ORCH_LOG_ERROR("connection failed", {{"error", e.what()}});
                }
            }
            const std::lock_guard lock(conn_mutex);
            live.erase(conn);
            connections.fetch_sub(1);
            drain_changed.notify_all();
        });
    }
}

HttpServer::HttpServer(ServerOptions options, const Router& router)
    : impl_(std::make_unique<Impl>(std::move(options), router)) {}

HttpServer::~HttpServer() {
    Stop();
    impl_->workers.join();
}

void HttpServer::SetObserver(RequestObserver observer) {
    impl_->observer = std::move(observer);
}

Status HttpServer::Start() {
    const std::string& listen = impl_->options.listen;
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) {
        return Error::InvalidArgument("listen address '" + listen + "' must be host:port");
    }
    std::string host = listen.substr(0, colon);
    if (host.size() > 1 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const std::string port = listen.substr(colon + 1);
    beast::error_code ec;
    tcp::resolver resolver(impl_->ioc);
    auto results = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec || results.empty()) {
        return Error::InvalidArgument("cannot resolve listen address '" + listen + "': " + ec.message());
    }
    const tcp::endpoint endpoint = results.begin()->endpoint();
    auto& acc = impl_->acceptor;
    acc.open(endpoint.protocol(), ec);
    if (!ec) {
        acc.set_option(asio::socket_base::reuse_address(true), ec);
    }
    if (!ec) {
        acc.bind(endpoint, ec);
    }
    if (!ec) {
        acc.listen(asio::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        return Error::Unavailable("cannot listen on " + listen + ": " + ec.message());
    }
    impl_->bound_port = acc.local_endpoint().port();
    asio::co_spawn(impl_->ioc, impl_->Accept(), [](const std::exception_ptr& error) {
        if (error) {
            try {
                std::rethrow_exception(error);
            } catch (const std::exception& e) {
                ORCH_LOG_ERROR("acceptor failed", {{"error", e.what()}});
            }
        }
    });
    return Ok();
}

int HttpServer::port() const {
    return impl_->bound_port;
}

void HttpServer::Run() {
    // Work guards keep run() alive while stopping, until Stop() decides everything drained.
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
    for (const auto& context : impl_->io) {
        guards.push_back(asio::make_work_guard(*context));
    }
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < impl_->io.size(); ++i) {
        threads.emplace_back([context = impl_->io[i].get()] { context->run(); });
    }
    // Sleeps until Stop() or a connection's end notifies `drain_changed`: no timer, no polling.
    std::thread reaper([this, &guards] {
        std::unique_lock lock(impl_->conn_mutex);
        impl_->drain_changed.wait(lock, [this] { return impl_->stopping.load(); });
        const auto deadline = std::chrono::steady_clock::now() + impl_->options.shutdown_grace;
        while (!impl_->live.empty()) {
            // Idle keep-alive connections would wait out their idle timeout; close them now. A busy
            // one answers with `Connection: close` and ends, which wakes this loop to look again.
            for (const auto& conn : impl_->live) {
                asio::post(conn->stream.get_executor(), [conn] {
                    if (!conn->busy) {
                        beast::error_code ec;
                        conn->stream.socket().cancel(ec);
                    }
                });
            }
            if (impl_->drain_changed.wait_until(lock, deadline) == std::cv_status::timeout) {
                break;
            }
        }
        lock.unlock();
        guards.clear();
        for (const auto& context : impl_->io) {
            context->stop();
        }
    });
    impl_->ioc.run();
    for (auto& t : threads) {
        t.join();
    }
    reaper.join();
}

void HttpServer::Stop() {
    {
        // Under the mutex, so the reaper cannot miss the notification between its check and its wait.
        const std::lock_guard lock(impl_->conn_mutex);
        if (impl_->stopping.exchange(true)) {
            return;
        }
    }
    impl_->drain_changed.notify_all();
    asio::post(impl_->ioc, [this] {
        beast::error_code ec;
        impl_->acceptor.close(ec);
    });
}

}  // namespace orch::server
