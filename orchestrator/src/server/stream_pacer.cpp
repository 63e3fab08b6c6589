#include "stream_pacer.hpp"

#include "common/log.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>

namespace orch::server {

namespace asio = boost::asio;

StreamPacer::StreamPacer(asio::io_context& io, const std::atomic<bool>& stopping)
    : io_(io), timer_(io), stopping_(stopping) {}

void StreamPacer::Add(const std::shared_ptr<Waiter>& waiter) {
    // At least a millisecond: the grid below divides by it.
    const Clock::duration interval = std::max(waiter->source_->interval(), std::chrono::milliseconds(1));
    waiter->due_ = Clock::now() + interval;
    if (waiting_.empty()) {
        period_ = interval;
    } else if (interval < period_) {
        period_ = interval;
        armed_ = Clock::time_point::max();  // re-armed below on the finer grid
    }
    waiting_.push_back(waiter);
    Arm();
}

void StreamPacer::Arm() {
    if (waiting_.empty()) {
        return;
    }
    // The next point of a grid of the period: streams that started at different moments still
    // share their ticks, which is what makes one wake-up serve all of them.
    const auto now = Clock::now().time_since_epoch();
    const auto next = Clock::time_point((now / period_ + 1) * period_);
    if (next >= armed_) {
        return;
    }
    armed_ = next;
    timer_.expires_at(next);  // cancels a later wait, whose handler then sees operation_aborted
    timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) {
            Tick();
        }
    });
}

void StreamPacer::Tick() {
    armed_ = Clock::time_point::max();
    // Due before the next tick: looked at now, up to one period early, rather than a period late.
    Walk(period_);
    Arm();
}

void StreamPacer::Nudge() {
    if (nudged_) {
        return;
    }
    nudged_ = true;
    asio::post(io_, [this] {
        nudged_ = false;
        // Half a period: a stream that has just waited again is not due, so a source that is never
        // Idle cannot be turned by its own nudges more than twice per interval.
        Walk(period_ / 2);
    });
}

void StreamPacer::Walk(Clock::duration ahead) {
    if (waiting_.empty()) {
        return;  // nothing to look at, and the period may be unset
    }
    ++walks_;
    const auto horizon = Clock::now() + ahead;
    const bool stopping = stopping_.load();
    std::size_t resumed = 0;
    for (std::size_t i = 0; i < waiting_.size();) {
        const auto waiter = waiting_[i].lock();
        bool resume = waiter == nullptr;  // gone: only dropped from the list
        if (waiter != nullptr && (stopping || waiter->due_ <= horizon)) {
            try {
                resume = stopping || !waiter->source_->Idle();
            } catch (const std::exception& e) {
                ORCH_LOG_ERROR("response stream failed", {{"error", e.what()}});
                resume = true;  // its Next meets the failure on the worker pool and ends the stream
            }
        }
        if (!resume) {
            ++i;
            continue;
        }
        if (waiter != nullptr) {
            waiter->wake_.cancel();
            ++resumed;
        }
        waiting_[i] = std::move(waiting_.back());
        waiting_.pop_back();
        if (resumed >= kSlice && !stopping) {
            Continue(ahead);
            return;
        }
    }
}

void StreamPacer::Continue(Clock::duration ahead) {
    if (continuing_) {
        return;
    }
    continuing_ = true;
    asio::post(io_, [this, ahead] {
        continuing_ = false;
        Walk(ahead);
    });
}

}  // namespace orch::server
