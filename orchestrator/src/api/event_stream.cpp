#include "orchestrator/api/event_stream.hpp"

#include "common/log.hpp"
#include "orchestrator/domain/attempt.hpp"

#include <algorithm>

namespace orch::api {

std::string FormatSseEvent(const domain::Event& event) {
    const Json body{
        {"id", event.id},
        {"type", std::string(domain::EventTypeName(event.type))},
        {"time", domain::FormatUtcMillis(event.time)},
        {"deploymentId", event.deployment_id},
        {"data", event.data}};
    // dump() escapes CR and LF inside strings: the data field stays one line whatever it carries;
    // invalid UTF-8 from a site is replaced rather than thrown at the stream.
    return "id: " + std::to_string(event.id) + "\nevent: " + std::string(domain::EventTypeName(event.type)) +
           "\ndata: " + body.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n\n";
}

EventFeed::EventFeed(store::EventStore& store, EventStreamOptions options, const Clock& clock)
    : store_(store), options_(options), clock_(clock) {}

EventFeed::Slot::~Slot() {
    const std::lock_guard lock(feed_.mutex_);
    --feed_.open_;
    if (auto it = feed_.per_caller_.find(caller_); it != feed_.per_caller_.end() && --it->second == 0) {
        feed_.per_caller_.erase(it);
    }
}

Result<std::unique_ptr<EventFeed::Slot>> EventFeed::Open(const std::string& caller) {
    const std::lock_guard lock(mutex_);
    if (open_ >= options_.max_streams) {
        return Error::ResourceExhausted("Too many event streams are open on this server; retry later");
    }
    auto& mine = per_caller_[caller];
    if (mine >= options_.max_streams_per_caller) {
        return Error::ResourceExhausted(
            "Too many event streams open for this caller (at most " + std::to_string(options_.max_streams_per_caller) +
            ")"
        );
    }
    ++mine;
    ++open_;
    return std::make_unique<Slot>(*this, caller);
}

std::size_t EventFeed::open_streams() {
    const std::lock_guard lock(mutex_);
    return open_;
}

namespace {

std::int64_t Micros(domain::TimePoint t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

}  // namespace

Result<std::int64_t> EventFeed::Latest() {
    const auto now = Micros(clock_.now());
    const auto half = std::chrono::duration_cast<std::chrono::microseconds>(options_.poll_interval / 2).count();
    const auto read_at = latest_read_us_.load();
    if (now - read_at < half && now >= read_at) {
        return latest_.load();
    }
    // One reader at a time; the others do not queue behind its query (a worker blocked on it is
    // a worker the list requests do not get): they take the last value, which is at worst stale.
    const std::unique_lock lock(refresh_, std::try_to_lock);
    if (!lock.owns_lock()) {
        return latest_.load();
    }
    ORCH_ASSIGN_OR_RETURN(const auto latest, store_.LatestId());
    Refill(latest);
    latest_.store(window_.to());
    latest_read_us_.store(now);
    return latest_.load();
}

// Under refresh_: the events past the window, up to `latest`, in one read for every stream. A
// burst larger than one read is caught up over the next refreshes (latest_ follows the window,
// so no stream is told of an id it cannot find yet).
void EventFeed::Refill(std::int64_t latest) {
    constexpr int kMostPerRead = 5'000;
    if (!window_.started()) {
        window_.Start(latest);
        return;
    }
    const auto to = window_.to();
    if (latest <= to) {
        return;
    }
    auto events = store_.Range(to, latest, kMostPerRead);
    if (!events) {
        ORCH_LOG_WARN("event streams: cannot read the log", {{"error", events.error().message}});
        return;
    }
    const bool all = static_cast<int>(events->size()) < kMostPerRead;
    window_.Append(*events, all ? latest : events->back().event.id);
}

bool EventFeed::ClaimRefresh(domain::TimePoint now_at) const {
    const auto now = Micros(now_at);
    const auto half = std::chrono::duration_cast<std::chrono::microseconds>(options_.poll_interval / 2).count();
    const auto read_at = latest_read_us_.load();
    if (now - read_at < half && now >= read_at) {
        return false;  // fresh
    }
    auto claimed = refresh_claim_us_.load();
    if (now - claimed < half && now >= claimed) {
        return false;  // another stream is on it
    }
    return refresh_claim_us_.compare_exchange_strong(claimed, now);
}

EventStream::EventStream(EventFeed& feed, store::EventQuery query, std::unique_ptr<EventFeed::Slot> slot)
    : feed_(feed),
      query_(std::move(query)),
      slot_(std::move(slot)),
      cursor_(query_.after_id),
      delivered_(query_.after_id) {}

bool EventStream::Idle() const {
    if (claimed_.load()) {
        return false;  // asked again before the Next that makes the read it claimed
    }
    const auto now = feed_.clock().now();
    const auto last = last_write_us_.load();
    if (last == kNotYet || Micros(now) - last >= std::chrono::microseconds(feed_.options().heartbeat).count()) {
        return false;  // the opening comment or a heartbeat is due
    }
    if (feed_.KnownLatest() > cursor_.load()) {
        return false;
    }
    if (feed_.ClaimRefresh(now)) {
        claimed_.store(true);
        return false;
    }
    return true;
}

bool EventStream::TakeFromWindow(std::string& out) {
    const auto next = feed_.window().Read(query_, cursor_.load(), feed_.options().batch_bytes, out);
    if (!next) {
        return false;
    }
    cursor_.store(*next);
    return true;
}

bool EventStream::WriteInline(std::string& out) {
    const auto now = feed_.clock().now();
    const auto last = last_write_us_.load();
    if (last == kNotYet || claimed_.load()) {
        return false;  // the opening comment, or the read of the newest id this stream claimed
    }
    const bool heartbeat_due = Micros(now) - last >= std::chrono::microseconds(feed_.options().heartbeat).count();
    if (feed_.KnownLatest() > cursor_.load()) {
        // News already in the window: the stream's share is written from here, no worker trip.
        delivered_.store(cursor_.load());  // asked only once the previous chunk went out
        if (!TakeFromWindow(out)) {
            return false;  // behind the window: Next reads the log
        }
        if (out.empty() && heartbeat_due) {
            out = ": keep-alive\n\n";
        }
        if (!out.empty()) {
            last_write_us_.store(Micros(now));
        }
        return true;
    }
    if (!heartbeat_due) {
        return false;
    }
    if (feed_.ClaimRefresh(now)) {
        claimed_.store(true);  // the read is this stream's to make: Next sends the keep-alive too
        return false;
    }
    out += ": keep-alive\n\n";
    last_write_us_.store(Micros(now));
    return true;
}

bool EventStream::Next(std::string& out) {
    const auto now = feed_.clock().now();
    delivered_.store(cursor_.load());  // Next is called only once the previous chunk went out
    claimed_.store(false);             // the read below is the one claimed, if any
    const auto last = last_write_us_.load();
    if (last == kNotYet) {
        out += ": stream open\nretry: " + std::to_string(feed_.options().poll_interval.count()) + "\n\n";
    }
    // The newest id first: every event up to it is committed (ids follow commit order), so when
    // the read below comes back short the cursor may jump to it, past other deployments' events.
    // News comes from the window every stream shares; only a cursor older than the window (a
    // resume from far back, a deployment's history) reads the log itself.
    auto latest = feed_.Latest();
    bool from_window = false;
    if (latest && *latest > cursor_.load()) {
        from_window = TakeFromWindow(out);
    }
    if (!from_window && latest && *latest > cursor_.load()) {
        query_.after_id = cursor_.load();
        auto events = feed_.store().After(query_);
        if (!events) {
            ORCH_LOG_WARN("event stream: cannot read the log", {{"error", events.error().message}});
        } else {
            bool full = static_cast<int>(events->size()) >= query_.limit;
            for (const auto& e : *events) {
                if (out.size() >= feed_.options().batch_bytes) {
                    full = true;  // the rest next time: one chunk stays bounded
                    break;
                }
                out += FormatSseEvent(e);
                cursor_.store(e.id);
            }
            if (!full) {
                cursor_.store(std::max(cursor_.load(), *latest));
            }
        }
    }
    if (out.empty() && last != kNotYet &&
        Micros(now) - last >= std::chrono::microseconds(feed_.options().heartbeat).count()) {
        out = ": keep-alive\n\n";
    }
    if (!out.empty() || last == kNotYet) {
        last_write_us_.store(Micros(now));
    }
    return true;
}

std::string EventStream::Dropped() const {
    return "event: dropped\ndata: " +
           Json{{"reason", "slow consumer: reconnect with Last-Event-ID to resume"}, {"lastEventId", delivered_.load()}}
               .dump() +
           "\n\n";
}

}  // namespace orch::api
