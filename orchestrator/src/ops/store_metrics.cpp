#include "orchestrator/ops/store_metrics.hpp"

#include "common/log.hpp"

#include <algorithm>
#include <chrono>

namespace orch::ops {

StoreMetrics::StoreMetrics(
    store::PgPool& pool, metrics::Registry& registry, std::chrono::milliseconds ttl, const Clock& clock
)
    : pool_(pool),
      registry_(registry),
      ttl_(ttl),
      clock_(clock),
      pool_connections_(registry.AddGauge(
          "orch_db_pool_connections",
          "Database pool connections by state (size, open, in_use, waiting callers)",
          {"state"}
      )),
      deployments_(
          registry.AddGauge("orch_deployments", "Deployments by status (from the store's counters)", {"status"})
      ),
      jobs_(registry.AddGauge(
          "orch_workflow_jobs", "Workflow jobs in the database (queued: all, due: runnable now)", {"state"}
      )),
      callbacks_pending_(registry.AddGauge(
          "orch_callback_deliveries_pending", "Callback deliveries in the outbox, not yet made or abandoned"
      )),
      callbacks_oldest_(registry.AddGauge(
          "orch_callback_oldest_pending_seconds",
          "Age of the oldest callback delivery in the outbox (0 when it is empty)"
      )),
      scrape_errors_(
          registry.AddCounter("orch_metrics_store_errors_total", "Failed reads of the store counters during a scrape")
      ) {
    collector_id_ = registry_.AddCollector([this] { Collect(); });
}

StoreMetrics::~StoreMetrics() {
    registry_.RemoveCollector(collector_id_);
}

void StoreMetrics::Collect() {
    const auto stats = pool_.Stats();
    pool_connections_.With({"size"}).Set(static_cast<double>(stats.size));
    pool_connections_.With({"open"}).Set(static_cast<double>(stats.open));
    pool_connections_.With({"in_use"}).Set(static_cast<double>(stats.in_use));
    pool_connections_.With({"waiting"}).Set(static_cast<double>(stats.waiting));
    RefreshCounts();
}

void StoreMetrics::RefreshCounts() {
    const std::lock_guard lock(mutex_);
    const auto now = clock_.steady_now();
    if (refreshed_ != std::chrono::steady_clock::time_point{} && now - refreshed_ < ttl_) {
        return;
    }
    auto result = pool_.Run([](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        std::vector<std::pair<std::string, double>> rows;
        for (const auto& row : tx.exec("SELECT status, sum(n)::float8 FROM deployment_counts GROUP BY status")) {
            rows.emplace_back(row[0].as<std::string>(), row[1].as<double>());
        }
        const auto jobs = tx.exec1(
            "SELECT count(*)::float8, (count(*) FILTER (WHERE run_at <= now() AND "
            "(lease_until IS NULL OR lease_until < now())))::float8 FROM jobs"
        );
        rows.emplace_back("jobs.queued", jobs[0].as<double>());
        rows.emplace_back("jobs.due", jobs[1].as<double>());
        // The oldest creation time, not its age: ages are measured on the process' Clock.
        const auto outbox = tx.exec1(
            "SELECT count(*)::float8, COALESCE(extract(epoch FROM min(created_at)), 0)::float8 "
            "FROM callback_deliveries"
        );
        rows.emplace_back("callbacks.pending", outbox[0].as<double>());
        rows.emplace_back("callbacks.oldest", outbox[1].as<double>());
        return rows;
    });
    // A failed read keeps the last values and retries on the next scrape (no refreshed_ update).
    if (!result) {
        scrape_errors_.With({}).Inc();
        ORCH_LOG_DEBUG("metrics: store counters unavailable", {{"error", result.error().message}});
        return;
    }
    refreshed_ = now;
    for (const auto& [key, value] : *result) {
        if (key == "jobs.queued") {
            jobs_.With({"queued"}).Set(value);
        } else if (key == "jobs.due") {
            jobs_.With({"due"}).Set(value);
        } else if (key == "callbacks.pending") {
            callbacks_pending_.With({}).Set(value);
        } else if (key == "callbacks.oldest") {
            const double wall = std::chrono::duration<double>(clock_.now().time_since_epoch()).count();
            callbacks_oldest_.With({}).Set(value > 0 ? std::max(0.0, wall - value) : 0.0);
        } else {
            deployments_.With({key}).Set(value);
        }
    }
}

}  // namespace orch::ops
