#pragma once

#include "common/clock.hpp"
#include "common/result.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/server/response_stream.hpp"
#include "orchestrator/store/event_store.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace orch::api {

/// The events.* configuration keys (configuration.md).
struct EventStreamOptions {
    std::chrono::milliseconds poll_interval{1'000};  ///< how often a stream looks for new events
    std::chrono::milliseconds heartbeat{15'000};     ///< ": keep-alive" after this long without a byte
    std::size_t max_streams = 2'000;                 ///< open streams in this process (429 beyond)
    std::size_t max_streams_per_caller = 8;          ///< open streams of one caller (429 beyond)
    std::size_t batch_bytes = 64u << 10;             ///< at most this much text per chunk
};

/// One event as Server-Sent Events text: `id:`, `event:` (the type) and a single `data:` line of
/// JSON {id, type, time, deploymentId, data}. JSON escapes every line break, so no text of the
/// event (a site's message) can start a field of its own.
std::string FormatSseEvent(const domain::Event& event);

/// What the streams of a process share: the log, the limits and the newest id, read from the
/// database at most once per poll interval for all streams together (idle streams cost no query).
class EventFeed {
   public:
    EventFeed(store::EventStore& store, EventStreamOptions options, const Clock& clock);

    /// Holds a place among the open streams until destroyed.
    class Slot {
       public:
        Slot(EventFeed& feed, std::string caller) : feed_(feed), caller_(std::move(caller)) {}
        ~Slot();
        Slot(const Slot&) = delete;
        Slot& operator=(const Slot&) = delete;

       private:
        EventFeed& feed_;
        std::string caller_;
    };
    /// A place for `caller`'s new stream; kResourceExhausted (429) past either limit.
    Result<std::unique_ptr<Slot>> Open(const std::string& caller);
    /// The newest committed event id, at most a poll interval old.
    Result<std::int64_t> Latest();

    store::EventStore& store() { return store_; }
    const EventStreamOptions& options() const { return options_; }
    const Clock& clock() const { return clock_; }
    std::size_t open_streams();

   private:
    store::EventStore& store_;
    EventStreamOptions options_;
    const Clock& clock_;
    std::mutex mutex_;
    std::size_t open_ = 0;
    std::map<std::string, std::size_t> per_caller_;
    std::int64_t latest_ = 0;
    std::optional<domain::TimePoint> latest_read_at_;
};

/// One client's stream: events after its cursor, in id order, scoped by the query's owner filter.
class EventStream final : public server::ResponseStream {
   public:
    EventStream(EventFeed& feed, store::EventQuery query, std::unique_ptr<EventFeed::Slot> slot);

    bool Next(std::string& out) override;
    std::chrono::milliseconds interval() const override { return feed_.options().poll_interval; }
    std::string Dropped() const override;

   private:
    EventFeed& feed_;
    store::EventQuery query_;
    std::unique_ptr<EventFeed::Slot> slot_;
    std::atomic<std::int64_t> cursor_;
    std::atomic<std::int64_t> delivered_;  ///< the cursor before the chunk being sent: what a dropped client saw
    std::optional<domain::TimePoint> last_write_;
};

}  // namespace orch::api
