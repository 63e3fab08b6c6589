#pragma once

#include "common/result.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace orch::store {

namespace detail {
template <typename T>
struct RunResult {
    using type = Result<T>;
};
template <typename T>
struct RunResult<Result<T>> {
    using type = Result<T>;
};
template <>
struct RunResult<void> {
    using type = Status;
};
template <typename T>
inline constexpr bool kIsResult = false;
template <typename T>
inline constexpr bool kIsResult<Result<T>> = true;
}  // namespace detail

struct PgPoolOptions {
    std::string dsn;                                   ///< libpq URL or keyword string
    std::size_t size = 8;                              ///< connections (and so concurrent queries)
    std::size_t max_waiters = 512;                     ///< callers queued for a connection; more → kUnavailable
    std::chrono::milliseconds acquire_timeout{5'000};  ///< wait for a free connection
    std::chrono::milliseconds statement_timeout{30'000};
    std::chrono::seconds connect_timeout{5};
};

struct PgPoolStats {
    std::size_t size = 0, open = 0, in_use = 0, waiting = 0;
};

/// A bounded pool of libpq connections for blocking code (worker threads, workflow steps;
/// never I/O threads). Connections are opened lazily and reopened after failures, so the
/// server starts and keeps running while the database is down and recovers by itself.
class PgPool {
   public:
    explicit PgPool(PgPoolOptions options);
    ~PgPool();
    PgPool(const PgPool&) = delete;
    PgPool& operator=(const PgPool&) = delete;

    /// Runs `fn(pqxx::connection&)` on a leased connection. A serialization failure or deadlock
    /// (40001, 40P01: PostgreSQL rolled the transaction back) runs `fn` again, up to
    /// kConflictAttempts times in all, so `fn` must keep no state across calls beyond its
    /// transaction. Database failures become errors: kUnavailable (cannot connect, connection
    /// lost, pool exhausted), kConflict (still conflicting after the retries: the caller may
    /// retry later), kInternal (anything else). `fn` may also return a Result itself, which is
    /// passed through.
    template <typename F>
    auto Run(F&& fn) -> typename detail::RunResult<std::invoke_result_t<F, pqxx::connection&>>::type;

    static constexpr int kConflictAttempts = 4;

    PgPoolStats Stats() const;
    const PgPoolOptions& options() const { return options_; }

   private:
    struct Slot {
        std::unique_ptr<pqxx::connection> conn;
        bool in_use = false;
    };

    Result<std::size_t> Acquire();
    void Release(std::size_t index, bool broken);
    Status EnsureOpen(Slot& slot);
    static Error Classify(const std::exception& e);
    static bool IsConflict(const std::exception& e);
    static void PauseBeforeRetry(int attempt);

    PgPoolOptions options_;
    std::string dsn_with_timeout_;
    mutable std::mutex mutex_;
    std::condition_variable available_;
    std::vector<Slot> slots_;
    std::size_t waiting_ = 0;
};

template <typename F>
auto PgPool::Run(F&& fn) -> typename detail::RunResult<std::invoke_result_t<F, pqxx::connection&>>::type {
    using R = std::invoke_result_t<F, pqxx::connection&>;
    for (int attempt = 1;; ++attempt) {
        auto index = Acquire();
        if (!index) {
            return std::move(index).error();
        }
        Slot& slot = slots_[*index];
        if (auto status = EnsureOpen(slot); !status) {
            Release(*index, true);
            return status.error();
        }
        try {
            if constexpr (std::is_void_v<R>) {
                fn(*slot.conn);
                Release(*index, false);
                return Ok();
            } else {
                R value = fn(*slot.conn);
                Release(*index, false);
                return value;
            }
        } catch (const pqxx::broken_connection& e) {
            Release(*index, true);
            return Classify(e);
        } catch (const std::exception& e) {
            Release(*index, !slot.conn || !slot.conn->is_open());
            if (attempt < kConflictAttempts && IsConflict(e)) {
                PauseBeforeRetry(attempt);
                continue;
            }
            return Classify(e);
        }
    }
}

}  // namespace orch::store
