#pragma once

#include "orchestrator/store/event_store.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace orch::api {

/// The newest events of the log, read once for every stream of the process and formatted once.
/// Before it, each open stream re-read the log itself after every new event anywhere: with 1,000
/// `/events` streams, 5 events a second made 1,000 queries a second on the pool the list shares
/// (the list's p99 at 3,000 req/s went from 8 to 149 ms, bench/events). A stream now takes its
/// share from here, scoped in memory by its own query (OwnerFilter::Admits and the deployment
/// id, the rule the stores write in SQL; the store contract checks they agree). A stream whose
/// cursor is older than the window (a resume from far back, a deployment's history) still reads
/// the log itself until it has caught up.
class EventWindow {
   public:
    /// Holds at most `capacity` events and `max_bytes` of their text; older ones leave first.
    EventWindow(std::size_t capacity, std::size_t max_bytes);

    /// The first read: the window covers the log from `latest` on and holds nothing older.
    void Start(std::int64_t latest);
    /// `events` are every event with to() < id <= up_to, in id order (the store's Range).
    void Append(const std::vector<store::LoggedEvent>& events, std::int64_t up_to);
    /// Appends to `out` the SSE text of the events after `cursor` that `query` admits, at most
    /// query.limit of them and stopping once `out` holds `max_bytes`; answers the stream's new
    /// cursor (the last id looked at, its own or another's). nullopt when the window does not
    /// hold everything after `cursor` (not started, or `cursor` older than it).
    std::optional<std::int64_t> Read(
        const store::EventQuery& query, std::int64_t cursor, std::size_t max_bytes, std::string& out
    ) const;

    bool started() const;
    /// Every event with id <= to() has been read into the window (or left it).
    std::int64_t to() const;

   private:
    struct Entry {
        std::int64_t id = 0;
        std::string deployment_id;
        std::string owner_issuer;
        std::string owner_subject;
        std::string sse;  ///< FormatSseEvent, once for all streams
    };
    static bool Admits(const store::EventQuery& query, const Entry& entry);
    void TrimLocked();

    const std::size_t capacity_;
    const std::size_t max_bytes_;
    mutable std::shared_mutex mutex_;
    std::deque<Entry> entries_;
    std::size_t bytes_ = 0;
    bool started_ = false;
    std::int64_t from_ = 0;  ///< every event with from_ < id <= to_ is in entries_
    std::int64_t to_ = 0;
};

}  // namespace orch::api
