#include "http_stream.hpp"

#include "common/log.hpp"
#include "orchestrator/server/inline_stream.hpp"
#include "orchestrator/server/response_stream.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <linux/sockios.h>
#include <sys/ioctl.h>  // SIOCOUTQ via linux/sockios.h: the unsent bytes of a stream's socket

#include <memory>

namespace orch::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;  // NOLINT(readability-identifier-naming): Asio's own name
constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

// Unsent bytes queued in the socket (Linux SIOCOUTQ): a client that does not read lets it grow.
std::size_t Unsent(tcp::socket& socket) {
    int queued = 0;
    if (::ioctl(socket.native_handle(), SIOCOUTQ, &queued) != 0 ||
        queued < 0) {  // NOLINT(cppcoreguidelines-pro-type-vararg)
        return 0;
    }
    return static_cast<std::size_t>(queued);
}

struct StreamStep {
    bool more = false;
    std::string text;
};

// One step of a streamed body on the worker pool; a throwing source ends its stream.
asio::awaitable<StreamStep> NextChunk(std::shared_ptr<ResponseStream> source) {
    StreamStep step;
    try {
        step.more = source->Next(step.text);
    } catch (const std::exception& e) {
        ORCH_LOG_ERROR("response stream failed", {{"error", e.what()}});
        step.more = false;
    }
    co_return step;
}

bhttp::response<bhttp::empty_body> StreamHead(const Response& res, const std::string& id, unsigned version) {
    bhttp::response<bhttp::empty_body> head;
    head.version(version);
    head.result(static_cast<unsigned>(res.status));
    head.set(bhttp::field::server, "indigo-orchestrator");
    head.set("X-Request-ID", id);
    head.set(bhttp::field::content_type, res.content_type);
    head.set(bhttp::field::cache_control, "no-cache");
    for (const auto& [name, value] : res.headers) {
        head.insert(name, value);
    }
    head.keep_alive(false);
    head.chunked(true);
    return head;
}

}  // namespace

asio::awaitable<void> WriteStream(
    const StreamContext& context, beast::tcp_stream& stream, Response res, const std::string& id, unsigned version
) {
    auto head = StreamHead(res, id, version);
    bhttp::response_serializer<bhttp::empty_body> serializer(head);
    stream.expires_after(context.options.write_timeout);
    if (auto [ec, n] = co_await bhttp::async_write_header(stream, serializer, kUseTuple); ec) {
        co_return;
    }
    const std::shared_ptr<ResponseStream> source = std::move(res.stream);
    const auto waiter = std::make_shared<StreamPacer::Waiter>(stream.get_executor(), source);
    auto* const inline_writer = dynamic_cast<InlineStream*>(source.get());
    // An idle source stays on this thread: a thousand quiet streams must not keep the worker pool
    // (and the requests queued for it) busy with empty turns. The pacer resumes this coroutine
    // only once the source is not Idle (Idle is asked once per decision: asking may claim work).
    bool turn = !source->Idle();
    while (!context.stopping.load()) {
        StreamStep step;
        step.more = true;
        if (turn && (inline_writer == nullptr || !inline_writer->WriteInline(step.text))) {
            step = co_await asio::co_spawn(context.workers, NextChunk(source), asio::use_awaitable);
            context.pacer.Nudge();  // the turn may have read news the other streams are waiting for
        }
        if (!step.text.empty()) {
            if (Unsent(stream.socket()) + step.text.size() > context.options.stream_buffer_limit) {
                const std::string last = source->Dropped();
                stream.expires_after(std::chrono::seconds(1));
                co_await asio::async_write(stream, bhttp::make_chunk(asio::buffer(last)), kUseTuple);
                ORCH_LOG_WARN("slow stream consumer dropped", {{"request_id", id}});
                co_return;
            }
            stream.expires_after(context.options.write_timeout);
            auto [ec, n] = co_await asio::async_write(stream, bhttp::make_chunk(asio::buffer(step.text)), kUseTuple);
            if (ec) {
                co_return;
            }
        }
        if (!step.more) {
            break;
        }
        co_await context.pacer.Wait(waiter);
        turn = true;
    }
    stream.expires_after(context.options.write_timeout);
    co_await asio::async_write(stream, bhttp::make_chunk_last(), kUseTuple);
}

}  // namespace orch::server
