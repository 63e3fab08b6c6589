#pragma once

#include "common/metrics.hpp"
#include "orchestrator/workflow/site_watch_observer.hpp"

namespace orch::ops {

/// The site watchers' observer, by site kind (`kind`: MARATHON, KUBERNETES): change streams open
/// now (orch_site_watch_streams), notifications read (orch_site_watch_notifications_total), polls
/// they made due (orch_site_watch_polls_due_total), streams ended and opened again by why
/// (orch_site_watch_reconnects_total, `end` closed|silent|refused|broken: all but `closed`
/// back off), and errors (orch_site_watch_errors_total, `error` store|oversized).
class SiteWatchMetrics final : public workflow::SiteWatchObserver {
   public:
    explicit SiteWatchMetrics(metrics::Registry& registry);
    void StreamOpened(connectors::TargetKind kind) override;
    void StreamClosed(connectors::TargetKind kind) override;
    void StreamEnded(connectors::TargetKind kind, workflow::StreamEnd end) override;
    void Notified(connectors::TargetKind kind, std::size_t due) override;
    void PollNowFailed(connectors::TargetKind kind) override;
    void Skipped(connectors::TargetKind kind, std::size_t count) override;

   private:
    metrics::Family<metrics::Gauge>& streams_;
    metrics::Family<metrics::Counter>& notifications_;
    metrics::Family<metrics::Counter>& polls_due_;
    metrics::Family<metrics::Counter>& reconnects_;
    metrics::Family<metrics::Counter>& errors_;
};

}  // namespace orch::ops
