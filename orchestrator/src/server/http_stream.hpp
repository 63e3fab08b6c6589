#pragma once

// The streamed (chunked, e.g. Server-Sent Events) side of the HTTP server: a response whose body
// comes from a ResponseStream instead of a string. Private to the server area.
#include "orchestrator/server/http_server.hpp"
#include "orchestrator/server/response.hpp"
#include "stream_pacer.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <atomic>
#include <string>

namespace orch::server {

/// What a stream needs of its server: its limits, the worker pool that runs the source (a source
/// may block), whether the server is stopping, and the pacer of the I/O thread the stream runs on.
struct StreamContext {
    const ServerOptions& options;
    boost::asio::thread_pool& workers;
    const std::atomic<bool>& stopping;
    StreamPacer& pacer;
};

/// Headers, then one chunk per Next of the source, paced by its interval (the pacer's ticks), until it ends, the client
/// leaves, a write takes longer than write_timeout, the client falls behind by more than
/// stream_buffer_limit unsent bytes (then the source's last words go out), or the server stops.
/// The connection is not reused afterwards.
boost::asio::awaitable<void> WriteStream(
    const StreamContext& context,
    boost::beast::tcp_stream& stream,
    Response res,
    const std::string& id,
    unsigned version
);

}  // namespace orch::server
