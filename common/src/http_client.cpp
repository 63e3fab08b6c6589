#include "common/http_client.hpp"

#include "common/egress_policy.hpp"
#include "common/http_stream.hpp"
#include "common/trace_context.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

namespace orch::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

// One connection owns its own io_context, so a blocking caller drives exactly its own I/O
// (no shared event loop to deadlock on) and a pooled connection can move between caller threads.
struct Connection {
    asio::io_context ioc;
    std::optional<beast::tcp_stream> plain;
    std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
    std::string key;
    SteadyClock::time_point last_used;

    beast::tcp_stream& Lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
};

using ConnectionPtr = std::unique_ptr<Connection>;

// Runs the event loop until the started operation completes or the deadline passes; on expiry the
// socket is closed, which completes the operation with operation_aborted.
bool RunUntil(Connection& conn, SteadyClock::time_point deadline, const bool& done) {
    conn.ioc.restart();
    while (!done) {
        if (conn.ioc.run_one_until(deadline) == 0) {
            if (SteadyClock::now() >= deadline) {
                break;
            }
            if (conn.ioc.stopped()) {
                break;
            }
        }
    }
    if (!done) {
        beast::error_code ignored;
        conn.Lowest().socket().close(ignored);
        conn.ioc.restart();
        conn.ioc.run();
        return false;
    }
    return true;
}

bool IsStaleConnectionError(const beast::error_code& ec) {
    return ec == bhttp::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
           ec == asio::error::broken_pipe || ec == asio::ssl::error::stream_truncated;
}

class BeastClient final : public Client, public StreamingClient {
   public:
    BeastClient(ClientOptions options, asio::ssl::context ssl) : options_(std::move(options)), ssl_(std::move(ssl)) {}

    Result<ClientResponse> Send(const ClientRequest& request) override {
        ClientRequest current = request;
        // Work done in a trace (a request, a workflow step) tells the site which one: the same
        // trace id, a new span id per call, unless the caller set its own.
        if (FindHeader(current.headers, "traceparent").empty()) {
            if (std::string parent = trace::OutboundTraceparent(); !parent.empty()) {
                current.headers.emplace_back("traceparent", std::move(parent));
            }
        }
        for (int hop = 0;; ++hop) {
            auto response = SendOnce(current);
            // A user-directed request never follows a redirect: the next hop would escape the policy.
            const int max_redirects = options_.egress ? 0 : options_.max_redirects;
            if (!response || hop >= max_redirects || !IsRedirect(response->status)) {
                return response;
            }
            const std::string location = response->Header("Location");
            if (location.empty()) {
                return response;
            }
            current.url = location.find("://") == std::string::npos ? Origin(current.url) + location : location;
            if (response->status == 303) {
                current.method = "GET";
                current.body.clear();
            }
        }
    }

    Status StreamBody(const ClientRequest& request, const StreamSink& sink) override {
        auto url = ParseUrl(request.url);
        if (!url) {
            return std::move(url).error();
        }
        ClientRequest current = request;
        if (std::string parent = trace::OutboundTraceparent(); !parent.empty()) {
            current.headers.emplace_back("traceparent", std::move(parent));
        }
        const auto deadline = SteadyClock::now() + request.timeout;
        const std::string key = url->scheme + "://" + url->host + ":" + url->port;
        // A connection of its own, never pooled: a stream holds it for its whole life.
        auto conn = Connect(*url, key, deadline);
        if (!conn) {
            return std::move(conn).error();
        }
        beast::error_code ec;
        if (auto sent = Write(**conn, *url, current, deadline, ec); !sent) {
            return sent;
        }
        return ReadStream(**conn, request.max_response_bytes, deadline, sink);
    }

   private:
    // Runs the loop in short slices until the started operation completes, asking `sink` in
    // between whether to give up. False when cancelled or past the deadline (socket closed).
    static bool RunSliced(
        Connection& conn, SteadyClock::time_point deadline, const bool& done, const StreamSink& sink
    ) {
        while (!done) {
            const auto slice = std::min(deadline, SteadyClock::now() + std::chrono::milliseconds(200));
            const bool last = slice >= deadline || (sink.cancelled && sink.cancelled());
            if (last) {
                return RunUntil(conn, SteadyClock::now(), done);
            }
            conn.ioc.restart();
            conn.ioc.run_one_until(slice);
        }
        return true;
    }

    static Status ReadStream(
        Connection& conn, std::size_t max_bytes, SteadyClock::time_point deadline, const StreamSink& sink
    ) {
        bhttp::response_parser<bhttp::buffer_body> parser;
        parser.header_limit(64 * 1024);
        parser.body_limit(max_bytes);
        beast::flat_buffer buffer;
        beast::error_code ec;
        bool done = false;
        const auto on_io = [&](beast::error_code e, std::size_t) {
            ec = e;
            done = true;
        };
        conn.Lowest().expires_at(deadline);
        if (conn.tls) {
            bhttp::async_read_header(*conn.tls, buffer, parser, on_io);
        } else {
            bhttp::async_read_header(*conn.plain, buffer, parser, on_io);
        }
        if (!RunSliced(conn, deadline, done, sink)) {
            return Ok();  // past its life or cancelled before the site answered: the caller decides
        }
        if (ec) {
            return Error::Unavailable("cannot read from " + conn.key + ": " + ec.message());
        }
        Headers headers;
        for (const auto& field : parser.get()) {
            headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
        }
        if (sink.on_status && !sink.on_status(static_cast<int>(parser.get().result_int()), headers)) {
            return Ok();
        }
        std::array<char, 16 * 1024> piece{};
        while (!parser.is_done()) {
            parser.get().body().data = piece.data();
            parser.get().body().size = piece.size();
            done = false;
            if (conn.tls) {
                bhttp::async_read_some(*conn.tls, buffer, parser, on_io);
            } else {
                bhttp::async_read_some(*conn.plain, buffer, parser, on_io);
            }
            if (!RunSliced(conn, deadline, done, sink)) {
                return Ok();
            }
            if (ec == bhttp::error::body_limit) {
                return Error::ResourceExhausted(
                    "stream from " + conn.key + " passed " + std::to_string(max_bytes) + " bytes"
                );
            }
            if (ec == beast::error::timeout) {
                return Ok();  // the stream's life is over: the caller reconnects
            }
            if (ec && ec != bhttp::error::need_buffer) {
                return IsStaleConnectionError(ec)
                           ? Ok()
                           : Error::Unavailable("cannot read from " + conn.key + ": " + ec.message());
            }
            const std::size_t got = piece.size() - parser.get().body().size;
            if (got > 0 && sink.on_bytes && !sink.on_bytes(std::string_view(piece.data(), got))) {
                return Ok();
            }
        }
        return Ok();
    }

    static bool IsRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    static std::string Origin(const std::string& url) {
        auto parsed = ParseUrl(url);
        return parsed ? parsed->scheme + "://" + parsed->host + ":" + parsed->port : std::string();
    }

    Result<ClientResponse> SendOnce(const ClientRequest& request) {
        auto url = ParseUrl(request.url);
        if (!url) {
            return std::move(url).error();
        }
        const auto deadline = SteadyClock::now() + request.timeout;
        const std::string key = url->scheme + "://" + url->host + ":" + url->port;
        // A pooled connection may have been closed by the peer while idle; one retry on a fresh
        // connection covers that without ever retrying a request that reached a live server.
        for (int attempt = 0; attempt < 2; ++attempt) {
            ConnectionPtr conn = attempt == 0 ? TakeIdle(key) : nullptr;
            const bool reused = conn != nullptr;
            if (!conn) {
                auto fresh = Connect(*url, key, deadline);
                if (!fresh) {
                    return std::move(fresh).error();
                }
                conn = std::move(*fresh);
            }
            beast::error_code ec;
            auto response = Exchange(conn, *url, request, deadline, ec);
            if (response) {
                return response;
            }
            if (!(reused && IsStaleConnectionError(ec))) {
                return response;
            }
        }
        return Error::Unavailable("connection to " + key + " failed");
    }

    Result<ConnectionPtr> Connect(const Url& url, const std::string& key, SteadyClock::time_point deadline) {
        auto conn = std::make_unique<Connection>();
        conn->key = key;
        tcp::resolver resolver(conn->ioc);
        bool done = false;
        beast::error_code ec;
        tcp::resolver::results_type endpoints;
        resolver.async_resolve(url.host, url.port, [&](beast::error_code e, tcp::resolver::results_type r) {
            ec = e;
            endpoints = std::move(r);
            done = true;
        });
        conn->plain.emplace(conn->ioc);
        if (!RunUntil(*conn, deadline, done)) {
            resolver.cancel();
            return Error::DeadlineExceeded("timed out resolving " + url.host);
        }
        if (ec) {
            return Error::Unavailable("cannot resolve " + url.host + ": " + ec.message());
        }
        auto allowed = AllowedEndpoints(url, endpoints);
        if (!allowed) {
            return std::move(allowed).error();
        }
        if (url.scheme == "https") {
            conn->plain.reset();
            conn->tls.emplace(conn->ioc, ssl_);
        }
        done = false;
        conn->Lowest().expires_at(deadline);
        conn->Lowest().async_connect(*allowed, [&](beast::error_code e, const tcp::endpoint&) {
            ec = e;
            done = true;
        });
        if (!RunUntil(*conn, deadline, done) || ec == beast::error::timeout) {
            return Error::DeadlineExceeded("timed out connecting to " + key);
        }
        if (ec) {
            return Error::Unavailable("cannot connect to " + key + ": " + ec.message());
        }
        if (conn->tls) {
            auto status = Handshake(*conn, url, deadline);
            if (!status) {
                return status.error();
            }
        }
        return conn;
    }

    // The resolved addresses the egress policy lets through; the connection goes to these and
    // only these (no second resolution that a rebinding DNS server could answer differently).
    Result<std::vector<tcp::endpoint>> AllowedEndpoints(const Url& url, const tcp::resolver::results_type& endpoints)
        const {
        std::vector<tcp::endpoint> out;
        Status refused = Ok();
        for (const auto& entry : endpoints) {
            const tcp::endpoint ep = entry.endpoint();
            if (!options_.egress) {
                out.push_back(ep);
                continue;
            }
            net::IpAddress address;
            const auto ip = ep.address();
            if (ip.is_v4()) {
                address.v4 = true;
                const auto bytes = ip.to_v4().to_bytes();
                std::copy(bytes.begin(), bytes.end(), address.bytes.begin());
            } else {
                address.bytes = ip.to_v6().to_bytes();
            }
            if (auto status = options_.egress->CheckResolved(url.host, address)) {
                out.push_back(ep);
            } else {
                refused = std::move(status);
            }
        }
        if (out.empty()) {
            if (!refused) {
                return refused.error();
            }
            return Error::Unavailable("cannot resolve " + url.host + ": no addresses");
        }
        return out;
    }

    Status Handshake(Connection& conn, const Url& url, SteadyClock::time_point deadline) {
        // SNI plus host-name verification: without the latter any valid certificate would be accepted.
        // SSL_set_tlsext_host_name is a macro with a C cast inside; call what it expands to.
        if (SSL_ctrl(
                conn.tls->native_handle(),
                SSL_CTRL_SET_TLSEXT_HOSTNAME,
                TLSEXT_NAMETYPE_host_name,
                const_cast<char*>(url.host.c_str())  // NOLINT(cppcoreguidelines-pro-type-const-cast): OpenSSL API
            ) != 1) {
            return Error::Unavailable("cannot set TLS server name for " + url.host);
        }
        if (options_.verify_peer) {
            conn.tls->set_verify_mode(asio::ssl::verify_peer);
            conn.tls->set_verify_callback(asio::ssl::host_name_verification(url.host));
        } else {
            conn.tls->set_verify_mode(asio::ssl::verify_none);
        }
        bool done = false;
        beast::error_code ec;
        conn.tls->async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) {
            ec = e;
            done = true;
        });
        if (!RunUntil(conn, deadline, done) || ec == beast::error::timeout) {
            return Error::DeadlineExceeded("timed out in TLS handshake with " + conn.key);
        }
        if (ec) {
            return Error::Unavailable("TLS handshake with " + conn.key + " failed: " + ec.message());
        }
        return Ok();
    }

    Status Write(
        Connection& conn,
        const Url& url,
        const ClientRequest& request,
        SteadyClock::time_point deadline,
        beast::error_code& ec
    ) {
        bhttp::request<bhttp::string_body> req;
        req.method_string(request.method);
        req.target(url.target);
        req.version(11);
        const bool default_port =
            (url.scheme == "https" && url.port == "443") || (url.scheme == "http" && url.port == "80");
        req.set(bhttp::field::host, default_port ? url.host : url.host + ":" + url.port);
        req.set(bhttp::field::user_agent, options_.user_agent);
        for (const auto& [name, value] : request.headers) {
            req.set(name, value);
        }
        req.body() = request.body;
        req.prepare_payload();

        bool done = false;
        conn.Lowest().expires_at(deadline);
        const auto on_io = [&](beast::error_code e, std::size_t) {
            ec = e;
            done = true;
        };
        if (conn.tls) {
            bhttp::async_write(*conn.tls, req, on_io);
        } else {
            bhttp::async_write(*conn.plain, req, on_io);
        }
        if (!RunUntil(conn, deadline, done) || ec == beast::error::timeout) {
            return Error::DeadlineExceeded("timed out sending to " + conn.key);
        }
        if (ec) {
            return Error::Unavailable("cannot send to " + conn.key + ": " + ec.message());
        }
        return Ok();
    }

    Result<ClientResponse> Exchange(
        ConnectionPtr& owned,
        const Url& url,
        const ClientRequest& request,
        SteadyClock::time_point deadline,
        beast::error_code& ec
    ) {
        Connection& conn = *owned;
        if (auto sent = Write(conn, url, request, deadline, ec); !sent) {
            return sent.error();
        }
        bool done = false;
        const auto on_io = [&](beast::error_code e, std::size_t) {
            ec = e;
            done = true;
        };

        bhttp::response_parser<bhttp::string_body> parser;
        parser.header_limit(64 * 1024);
        parser.body_limit(request.max_response_bytes);
        if (request.method == "HEAD") {
            parser.skip(true);
        }
        beast::flat_buffer buffer;
        done = false;
        if (conn.tls) {
            bhttp::async_read(*conn.tls, buffer, parser, on_io);
        } else {
            bhttp::async_read(*conn.plain, buffer, parser, on_io);
        }
        if (!RunUntil(conn, deadline, done) || ec == beast::error::timeout) {
            return Error::DeadlineExceeded("timed out waiting for " + conn.key);
        }
        if (ec == bhttp::error::body_limit) {
            return Error::ResourceExhausted(
                "response from " + conn.key + " is larger than " + std::to_string(request.max_response_bytes) + " bytes"
            );
        }
        if (ec) {
            return Error::Unavailable("cannot read from " + conn.key + ": " + ec.message());
        }
        auto res = parser.release();
        ClientResponse out;
        out.status = static_cast<int>(res.result_int());
        for (const auto& field : res) {
            out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
        }
        out.body = std::move(res.body());
        if (res.keep_alive()) {
            ReturnIdle(std::move(owned));
        }
        return out;
    }

    ConnectionPtr TakeIdle(const std::string& key) {
        const std::lock_guard lock(mutex_);
        auto it = idle_.find(key);
        const auto now = SteadyClock::now();
        while (it != idle_.end() && !it->second.empty()) {
            ConnectionPtr conn = std::move(it->second.back());
            it->second.pop_back();
            if (now - conn->last_used < options_.idle_timeout) {
                return conn;
            }
        }
        return nullptr;
    }

    void ReturnIdle(ConnectionPtr conn) {
        conn->last_used = SteadyClock::now();
        const std::lock_guard lock(mutex_);
        auto& list = idle_[conn->key];
        if (list.size() < options_.max_idle_per_host) {
            list.push_back(std::move(conn));
        }
    }

    ClientOptions options_;
    asio::ssl::context ssl_;
    std::mutex mutex_;
    std::map<std::string, std::deque<ConnectionPtr>> idle_;
};

}  // namespace

Result<std::unique_ptr<Client>> MakeClient(const ClientOptions& options) {
    asio::ssl::context ssl(asio::ssl::context::tls_client);
    beast::error_code ec;
    ssl.set_default_verify_paths(ec);
    if (ec) {
        return Error::Internal("cannot load the system trust store: " + ec.message());
    }
    if (!options.ca_file.empty()) {
        ssl.load_verify_file(options.ca_file, ec);
        if (ec) {
            return Error::InvalidArgument("cannot load CA file '" + options.ca_file + "': " + ec.message());
        }
    }
    if (!options.client_cert_file.empty() || !options.client_key_file.empty()) {
        ssl.use_certificate_chain_file(options.client_cert_file, ec);
        if (!ec) {
            ssl.use_private_key_file(options.client_key_file, asio::ssl::context::pem, ec);
        }
        if (ec) {
            return Error::InvalidArgument(
                "cannot load client certificate '" + options.client_cert_file + "': " + ec.message()
            );
        }
    }
    return std::unique_ptr<Client>(std::make_unique<BeastClient>(options, std::move(ssl)));
}

}  // namespace orch::http
