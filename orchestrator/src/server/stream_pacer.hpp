#pragma once

// The pauses of the streamed responses of one I/O thread. Private to the server area.
#include "orchestrator/server/response_stream.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

namespace orch::server {

/// One timer for all the streams of an I/O thread instead of one each: a thousand idle streams
/// cost one wake-up of the thread per poll interval, not a thousand. At each tick (on a grid of
/// the shortest interval, so every stream of that interval is looked at in the same walk) the
/// pacer asks each waiting stream whether it is Idle and resumes only the ones that are not.
/// A stream's turn can make the others' news known (the one reading the newest id for all), so
/// after a turn the pacer walks again at once (Nudge) instead of waiting for the next tick.
///
/// Not thread-safe on purpose: it belongs to one io_context, which one thread runs, and the
/// streams it paces run on strands of that io_context.
class StreamPacer {
   public:
    using Clock = std::chrono::steady_clock;

    /// One stream's place in the pacer, owned by its coroutine; the pacer holds it weakly, so a
    /// coroutine destroyed while it waits (the server's io_context going away) leaves no dangling
    /// entry behind.
    class Waiter {
       public:
        Waiter(const boost::asio::any_io_executor& executor, std::shared_ptr<const ResponseStream> source)
            : wake_(executor), source_(std::move(source)) {}

       private:
        friend class StreamPacer;
        boost::asio::steady_timer wake_;  ///< never expires: the pacer cancels it to resume the stream
        std::shared_ptr<const ResponseStream> source_;
        Clock::time_point due_{};
    };

    StreamPacer(boost::asio::io_context& io, const std::atomic<bool>& stopping);
    StreamPacer(const StreamPacer&) = delete;
    StreamPacer& operator=(const StreamPacer&) = delete;

    /// Until the waiter's source, looked at about its interval from now, is not Idle, or until
    /// the server stops. The waiter must not be waiting already.
    auto Wait(const std::shared_ptr<Waiter>& waiter) {
        Add(waiter);
        waiter->wake_.expires_at(Clock::time_point::max());
        return waiter->wake_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }
    /// A stream just had its turn: walk the waiting streams soon (once, however many nudge).
    void Nudge();

    std::size_t waiting() const { return waiting_.size(); }
    /// Walks made so far (ticks and nudges): what the timer costs the thread.
    std::size_t walks() const { return walks_; }

   private:
    void Add(const std::shared_ptr<Waiter>& waiter);
    // Resumes each waiter that is due within `ahead` and not Idle (every one when stopping).
    void Walk(Clock::duration ahead);
    void Tick();
    void Arm();
    // The rest of a walk after a slice, behind what the thread has queued meanwhile.
    void Continue(Clock::duration ahead);

    /// Streams resumed per slice of a walk. A thousand streams with news are a burst of writes on
    /// this thread; in slices, the requests of other connections queued meanwhile are served
    /// between them instead of after the whole burst.
    static constexpr std::size_t kSlice = 32;

    boost::asio::io_context& io_;
    boost::asio::steady_timer timer_;
    const std::atomic<bool>& stopping_;
    std::vector<std::weak_ptr<Waiter>> waiting_;
    Clock::duration period_ = Clock::duration::max();  ///< the shortest interval waiting
    Clock::time_point armed_ = Clock::time_point::max();
    bool nudged_ = false;
    bool continuing_ = false;
    std::size_t walks_ = 0;
};

}  // namespace orch::server
