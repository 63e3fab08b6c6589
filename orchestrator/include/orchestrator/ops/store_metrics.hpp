#pragma once

#include "common/clock.hpp"
#include "common/metrics.hpp"
#include "orchestrator/store/pg_pool.hpp"

#include <chrono>
#include <mutex>

namespace orch::ops {

/// Database-backed gauges for /metrics: the pool's usage (read from memory on every scrape) and
/// deployments by status, due workflow jobs and the callback outbox's backlog with the age of its
/// oldest delivery (read from the trigger-kept counters and the tables, at most once
/// per `ttl`, so frequent scrapes cost the database nothing). Collection runs inside the /metrics
/// handler, i.e. on the worker pool, never on an I/O thread. The ttl is measured on `clock`.
class StoreMetrics {
   public:
    StoreMetrics(store::PgPool& pool, metrics::Registry& registry, std::chrono::milliseconds ttl, const Clock& clock);
    ~StoreMetrics();
    StoreMetrics(const StoreMetrics&) = delete;
    StoreMetrics& operator=(const StoreMetrics&) = delete;

   private:
    void Collect();
    void RefreshCounts();

    store::PgPool& pool_;
    metrics::Registry& registry_;
    std::chrono::milliseconds ttl_;
    const Clock& clock_;
    metrics::Family<metrics::Gauge>& pool_connections_;
    metrics::Family<metrics::Gauge>& deployments_;
    metrics::Family<metrics::Gauge>& jobs_;
    metrics::Family<metrics::Gauge>& callbacks_pending_;
    metrics::Family<metrics::Gauge>& callbacks_oldest_;
    metrics::Family<metrics::Counter>& scrape_errors_;
    std::mutex mutex_;  // one refresh at a time
    std::chrono::steady_clock::time_point refreshed_{};
    int collector_id_ = 0;
};

}  // namespace orch::ops
