#pragma once

#include "common/result.hpp"
#include "orchestrator/store/pg_pool.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace orch::store {

/// Brings the schema up to date in the background and tells whether the database is usable.
/// The server starts without waiting for it: while the database is unreachable the API answers
/// 503 and this keeps retrying (with backoff) until the migrations are applied.
class DatabaseSupervisor {
   public:
    explicit DatabaseSupervisor(PgPool& pool);
    ~DatabaseSupervisor();
    DatabaseSupervisor(const DatabaseSupervisor&) = delete;
    DatabaseSupervisor& operator=(const DatabaseSupervisor&) = delete;

    void Start();
    void Stop();

    /// True once the schema is current (stays true; outages show up as query errors).
    bool SchemaReady() const { return schema_ready_.load(); }
    /// SchemaReady() and a round trip to the database succeeds now.
    Status CheckReady();
    /// Blocks until the schema is ready or the timeout passes (tests, tools).
    bool WaitReady(std::chrono::milliseconds timeout);

   private:
    void Loop();

    PgPool& pool_;
    std::atomic<bool> schema_ready_{false};
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

}  // namespace orch::store
