#include "orchestrator/ops/site_watch_metrics.hpp"

#include <string>

namespace orch::ops {
namespace {

std::string Kind(connectors::TargetKind kind) {
    return std::string(connectors::TargetKindName(kind));
}

}  // namespace

SiteWatchMetrics::SiteWatchMetrics(metrics::Registry& registry)
    : streams_(registry.AddGauge("orch_site_watch_streams", "Change streams to sites open now, by site kind", {"kind"})
      ),
      notifications_(registry.AddCounter(
          "orch_site_watch_notifications_total", "Change notifications read from sites, by site kind", {"kind"}
      )),
      polls_due_(registry.AddCounter(
          "orch_site_watch_polls_due_total", "Waiting polls made due now by site notifications, by site kind", {"kind"}
      )),
      reconnects_(registry.AddCounter(
          "orch_site_watch_reconnects_total",
          "Change streams ended and opened again, by site kind and why",
          {"kind", "end"}
      )),
      errors_(
          registry.AddCounter("orch_site_watch_errors_total", "Site watcher errors, by site kind", {"kind", "error"})
      ) {}

void SiteWatchMetrics::StreamOpened(connectors::TargetKind kind) {
    streams_.With({Kind(kind)}).Add(1);
}

void SiteWatchMetrics::StreamClosed(connectors::TargetKind kind) {
    streams_.With({Kind(kind)}).Add(-1);
}

void SiteWatchMetrics::StreamEnded(connectors::TargetKind kind, workflow::StreamEnd end) {
    reconnects_.With({Kind(kind), std::string(workflow::StreamEndName(end))}).Inc();
}

void SiteWatchMetrics::Notified(connectors::TargetKind kind, std::size_t due) {
    notifications_.With({Kind(kind)}).Inc();
    if (due > 0) {
        polls_due_.With({Kind(kind)}).Inc(static_cast<double>(due));
    }
}

void SiteWatchMetrics::PollNowFailed(connectors::TargetKind kind) {
    errors_.With({Kind(kind), "store"}).Inc();
}

void SiteWatchMetrics::Skipped(connectors::TargetKind kind, std::size_t count) {
    errors_.With({Kind(kind), "oversized"}).Inc(static_cast<double>(count));
}

}  // namespace orch::ops
