#include "orchestrator/api/event_window.hpp"

#include "orchestrator/api/event_stream.hpp"

#include <algorithm>
#include <mutex>

namespace orch::api {

EventWindow::EventWindow(std::size_t capacity, std::size_t max_bytes)
    : capacity_(std::max<std::size_t>(1, capacity)), max_bytes_(max_bytes) {}

void EventWindow::Start(std::int64_t latest) {
    const std::unique_lock lock(mutex_);
    if (started_) {
        return;
    }
    started_ = true;
    from_ = latest;
    to_ = latest;
}

void EventWindow::Append(const std::vector<store::LoggedEvent>& events, std::int64_t up_to) {
    // Formatted before the lock: the streams reading the window never wait for the JSON.
    std::vector<Entry> fresh;
    fresh.reserve(events.size());
    for (const auto& logged : events) {
        fresh.push_back(Entry{
            logged.event.id,
            logged.event.deployment_id,
            logged.owner_issuer,
            logged.owner_subject,
            FormatSseEvent(logged.event)});
    }
    const std::unique_lock lock(mutex_);
    if (!started_ || up_to <= to_) {
        return;
    }
    for (auto& entry : fresh) {
        if (entry.id > to_ && entry.id <= up_to) {
            bytes_ += entry.sse.size();
            entries_.push_back(std::move(entry));
        }
    }
    to_ = up_to;
    TrimLocked();
}

void EventWindow::TrimLocked() {
    while (!entries_.empty() && (entries_.size() > capacity_ || bytes_ > max_bytes_)) {
        from_ = entries_.front().id;
        bytes_ -= entries_.front().sse.size();
        entries_.pop_front();
    }
}

bool EventWindow::Admits(const store::EventQuery& query, const Entry& entry) {
    if (query.deployment_id && entry.deployment_id != *query.deployment_id) {
        return false;
    }
    return query.owner.Admits(entry.owner_issuer, entry.owner_subject);
}

std::optional<std::int64_t> EventWindow::Read(
    const store::EventQuery& query, std::int64_t cursor, std::size_t max_bytes, std::string& out
) const {
    const std::shared_lock lock(mutex_);
    if (!started_ || cursor < from_) {
        return std::nullopt;
    }
    if (cursor >= to_) {
        return cursor;
    }
    auto it = std::upper_bound(entries_.begin(), entries_.end(), cursor, [](std::int64_t id, const Entry& e) {
        return id < e.id;
    });
    std::int64_t next = cursor;
    int sent = 0;
    for (; it != entries_.end(); ++it) {
        if (out.size() >= max_bytes || sent >= query.limit) {
            return next;  // the rest next time: one chunk stays bounded
        }
        if (Admits(query, *it)) {
            out += it->sse;
            ++sent;
        }
        next = it->id;
    }
    return to_;  // past the gaps and the other streams' events, up to what was read
}

bool EventWindow::started() const {
    const std::shared_lock lock(mutex_);
    return started_;
}

std::int64_t EventWindow::to() const {
    const std::shared_lock lock(mutex_);
    return to_;
}

}  // namespace orch::api
