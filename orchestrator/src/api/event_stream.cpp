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

Result<std::int64_t> EventFeed::Latest() {
    const std::lock_guard lock(mutex_);
    const auto now = clock_.now();
    if (!latest_read_at_ || now - *latest_read_at_ >= options_.poll_interval / 2 || now < *latest_read_at_) {
        ORCH_ASSIGN_OR_RETURN(latest_, store_.LatestId());
        latest_read_at_ = now;
    }
    return latest_;
}

EventStream::EventStream(EventFeed& feed, store::EventQuery query, std::unique_ptr<EventFeed::Slot> slot)
    : feed_(feed),
      query_(std::move(query)),
      slot_(std::move(slot)),
      cursor_(query_.after_id),
      delivered_(query_.after_id) {}

bool EventStream::Next(std::string& out) {
    const auto now = feed_.clock().now();
    delivered_.store(cursor_.load());  // Next is called only once the previous chunk went out
    if (!last_write_) {
        out += ": stream open\nretry: " + std::to_string(feed_.options().poll_interval.count()) + "\n\n";
    }
    // The newest id first: every event up to it is committed (ids follow commit order), so when
    // the read below comes back short the cursor may jump to it, past other deployments' events.
    auto latest = feed_.Latest();
    if (latest && *latest > cursor_.load()) {
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
    if (out.empty() && last_write_ && now - *last_write_ >= feed_.options().heartbeat) {
        out = ": keep-alive\n\n";
    }
    if (!out.empty() || !last_write_) {
        last_write_ = now;
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
