#pragma once

#include "common/clock.hpp"
#include "common/result.hpp"
#include "orchestrator/api/event_window.hpp"
#include "orchestrator/domain/event.hpp"
#include "orchestrator/server/inline_stream.hpp"
#include "orchestrator/store/event_store.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <limits>
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
    std::size_t window_events = 10'000;              ///< the newest events held for all streams (EventWindow)
    std::size_t window_bytes = 16u << 20;            ///< and at most this much of their text
};

/// One event as Server-Sent Events text: `id:`, `event:` (the type) and a single `data:` line of
/// JSON {id, type, time, deploymentId, data}. JSON escapes every line break, so no text of the
/// event (a site's message) can start a field of its own.
std::string FormatSseEvent(const domain::Event& event);

/// What the streams of a process share: the log, the limits, the newest id and the window of the
/// newest events, both read from the database at most once per half poll interval for all streams
/// together, by one of them (idle streams cost no query, and no worker: EventStream::Idle reads
/// the shared id without a lock; streams with news take it from the window, not from the log).
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
    /// The newest committed event id, at most a poll interval old, and every event up to it in
    /// the window (the read that learns of new ids reads them too). Never waits for another
    /// stream's read: while one is under way, the others take the last value.
    Result<std::int64_t> Latest();
    /// The last value Latest read (lock-free, for Idle).
    std::int64_t KnownLatest() const { return latest_.load(); }
    /// Whether the shared id is due for a read and the calling stream is the one to make it
    /// (one per half poll interval). Lock-free, for Idle.
    bool ClaimRefresh(domain::TimePoint now) const;

    store::EventStore& store() { return store_; }
    const EventWindow& window() const { return window_; }
    const EventStreamOptions& options() const { return options_; }
    const Clock& clock() const { return clock_; }
    std::size_t open_streams();

   private:
    void Refill(std::int64_t latest);

    store::EventStore& store_;
    EventStreamOptions options_;
    const Clock& clock_;
    EventWindow window_{options_.window_events, options_.window_bytes};
    std::mutex mutex_;
    std::size_t open_ = 0;
    std::map<std::string, std::size_t> per_caller_;
    std::mutex refresh_;                   ///< held by the one stream reading the newest id
    std::atomic<std::int64_t> latest_{0};  ///< window_.to() once started: a stream finds every event up to it there
    std::atomic<std::int64_t> latest_read_us_{kNever};  ///< when latest_ was read (wall, µs)
    mutable std::atomic<std::int64_t> refresh_claim_us_{kNever};
    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min() / 2;
};

/// One client's stream: events after its cursor, in id order, scoped by the query's owner filter.
class EventStream final : public server::InlineStream {
   public:
    EventStream(EventFeed& feed, store::EventQuery query, std::unique_ptr<EventFeed::Slot> slot);

    bool Next(std::string& out) override;
    /// Nothing new known past the cursor, no heartbeat due and the shared id fresh (or another
    /// stream refreshing it): Next would send nothing.
    bool Idle() const override;
    std::chrono::milliseconds interval() const override { return feed_.options().poll_interval; }
    std::string Dropped() const override;
    /// Without a trip to the worker pool: news already known, when the window holds everything
    /// after the cursor (the stream's share of it, possibly nothing); or a heartbeat due, nothing
    /// new known and no read of the shared id to make (neither claimed by the Idle before nor
    /// claimable now). Otherwise Next: the opening comment, a read to make, a cursor behind the window.
    bool WriteInline(std::string& out) override;

   private:
    /// The stream's share of the window after its cursor, appended to `out`, and the cursor moved
    /// past what was looked at; false when the window does not hold everything after the cursor.
    bool TakeFromWindow(std::string& out);

    EventFeed& feed_;
    store::EventQuery query_;
    std::unique_ptr<EventFeed::Slot> slot_;
    std::atomic<std::int64_t> cursor_;
    std::atomic<std::int64_t> delivered_;  ///< the cursor before the chunk being sent: what a dropped client saw
    std::atomic<std::int64_t> last_write_us_{kNotYet};  ///< wall µs of the last chunk sent (Idle reads it)
    mutable std::atomic<bool> claimed_{false};          ///< Idle claimed the shared id's read: Next must make it
    static constexpr std::int64_t kNotYet = std::numeric_limits<std::int64_t>::min();
};

}  // namespace orch::api
