#include "orchestrator/store/pg_pool.hpp"

#include "common/log.hpp"

#include <random>
#include <thread>

namespace orch::store {

PgPool::PgPool(PgPoolOptions options) : options_(std::move(options)), slots_(std::max<std::size_t>(1, options_.size)) {
    // libpq would otherwise wait for the OS TCP timeout (minutes) on an unreachable host.
    const bool is_url = options_.dsn.rfind("postgres", 0) == 0 && options_.dsn.find("://") != std::string::npos;
    const std::string timeout = "connect_timeout=" + std::to_string(options_.connect_timeout.count());
    if (options_.dsn.find("connect_timeout") != std::string::npos) {
        dsn_with_timeout_ = options_.dsn;
    } else if (is_url) {
        dsn_with_timeout_ = options_.dsn + (options_.dsn.find('?') == std::string::npos ? "?" : "&") + timeout;
    } else {
        dsn_with_timeout_ = options_.dsn + " " + timeout;
    }
}

PgPool::~PgPool() = default;

Result<std::size_t> PgPool::Acquire() {
    std::unique_lock lock(mutex_);
    const auto deadline = std::chrono::steady_clock::now() + options_.acquire_timeout;
    if (waiting_ >= options_.max_waiters) {
        return Error::Unavailable("Database connection pool is saturated; retry later");
    }
    ++waiting_;
    while (true) {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            if (!slots_[i].in_use) {
                slots_[i].in_use = true;
                --waiting_;
                return i;
            }
        }
        if (available_.wait_until(lock, deadline) == std::cv_status::timeout) {
            --waiting_;
            return Error::Unavailable("Timed out waiting for a database connection");
        }
    }
}

void PgPool::Release(std::size_t index, bool broken) {
    {
        const std::lock_guard lock(mutex_);
        if (broken) {
            slots_[index].conn.reset();
        }
        slots_[index].in_use = false;
    }
    available_.notify_one();
}

Status PgPool::EnsureOpen(Slot& slot) {
    if (slot.conn && slot.conn->is_open()) {
        return Ok();
    }
    slot.conn.reset();
    try {
        auto conn = std::make_unique<pqxx::connection>(dsn_with_timeout_);
        pqxx::nontransaction tx(*conn);
        tx.exec0("SET statement_timeout = " + std::to_string(options_.statement_timeout.count()));
        tx.exec0("SET TIME ZONE 'UTC'");
        // plan_cache_mode stays auto: the named statements (the list's first pages, the create)
        // keep a generic plan after five executions, while statements whose plan depends on their
        // values (LIMIT and OFFSET of other pages) are sent unnamed and planned for those values
        // (pg_deployment_store.cpp, InlinePage). force_custom_plan planned the owner-scoped list
        // on every request: that was the cost of auth per request (bench/NOTES.md).
        slot.conn = std::move(conn);
        return Ok();
    } catch (const std::exception& e) {
        // The message may name host and port but never a password (libpq does not echo it).
        ORCH_LOG_WARN("database connection failed", {{"error", std::string(e.what()).substr(0, 300)}});
        return Error::Unavailable("The database is unavailable; retry later");
    }
}

bool PgPool::IsConflict(const std::exception& e) {
    // libpqxx 6 throws these two (40001, 40P01) as transaction_rollback, which is not an
    // sql_error: a check of the SQLSTATE alone never saw them, and a deadlock became a 500.
    return dynamic_cast<const pqxx::deadlock_detected*>(&e) != nullptr ||
           dynamic_cast<const pqxx::serialization_failure*>(&e) != nullptr;
}

void PgPool::PauseBeforeRetry(int attempt) {
    // A short random pause, growing with the attempt, so the transactions that just collided do
    // not meet again in the same step.
    thread_local std::minstd_rand rng(std::random_device{}());
    std::uniform_int_distribution<int> jitter_us(0, 2000 * attempt);
    std::this_thread::sleep_for(std::chrono::microseconds(500 + jitter_us(rng)));
}

Error PgPool::Classify(const std::exception& e) {
    if (dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr) {
        return Error::Unavailable("The database is unavailable; retry later");
    }
    if (IsConflict(e)) {
        return Error::Conflict("The request couldn't be fulfilled because of a concurrent update. Please retry later")
            .WithRetryAfter(std::chrono::seconds(0));
    }
    if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
        const std::string state = sql->sqlstate();
        if (state == "57014") {
            return Error::DeadlineExceeded("The database did not answer in time");
        }
        if (state.rfind("08", 0) == 0 || state == "57P01" || state == "57P02" || state == "57P03") {
            return Error::Unavailable("The database is unavailable; retry later");
        }
        // undefined_table: a fresh database whose migrations have not been applied yet (the
        // supervisor is still retrying them); the request may succeed shortly, so 503, not 500.
        if (state == "42P01") {
            return Error::Unavailable("The database schema is not ready yet; retry later");
        }
    }
    // The connection went away while a statement ran (also a transaction_rollback in libpqxx 6).
    if (dynamic_cast<const pqxx::statement_completion_unknown*>(&e) != nullptr) {
        return Error::Unavailable("The database connection was lost during a statement");
    }
    if (dynamic_cast<const pqxx::in_doubt_error*>(&e) != nullptr) {
        return Error::Unavailable("The database connection was lost during a commit");
    }
    ORCH_LOG_ERROR("database error", {{"error", std::string(e.what()).substr(0, 500)}});
    return Error::Internal("Database error").WithLogMessage(std::string(e.what()).substr(0, 500));
}

PgPoolStats PgPool::Stats() const {
    const std::lock_guard lock(mutex_);
    PgPoolStats stats;
    stats.size = slots_.size();
    stats.waiting = waiting_;
    for (const auto& slot : slots_) {
        stats.open += slot.conn ? 1 : 0;
        stats.in_use += slot.in_use ? 1 : 0;
    }
    return stats;
}

}  // namespace orch::store
