#include "orchestrator/store/database_supervisor.hpp"

#include "common/log.hpp"
#include "orchestrator/store/migrations.hpp"

namespace orch::store {

DatabaseSupervisor::DatabaseSupervisor(PgPool& pool) : pool_(pool) {}

DatabaseSupervisor::~DatabaseSupervisor() {
    Stop();
}

void DatabaseSupervisor::Start() {
    if (!thread_.joinable()) {
        thread_ = std::thread([this] { Loop(); });
    }
}

void DatabaseSupervisor::Stop() {
    stop_.store(true);
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void DatabaseSupervisor::Loop() {
    auto backoff = std::chrono::milliseconds(200);
    int failures = 0;
    while (!stop_.load() && !schema_ready_.load()) {
        auto applied = ApplyMigrations(pool_);
        if (applied) {
            schema_ready_.store(true);
            wake_.notify_all();
            ORCH_LOG_INFO("database ready", {{"migrations_applied", *applied}});
            return;
        }
        // Log the first failure and then every tenth, so an outage does not flood the log.
        if (failures++ % 10 == 0) {
            ORCH_LOG_WARN("database not ready; retrying", {{"error", applied.error().message}});
        }
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, backoff, [this] { return stop_.load(); });
        backoff = std::min(backoff * 2, std::chrono::milliseconds(5'000));
    }
}

Status DatabaseSupervisor::CheckReady() {
    if (!schema_ready_.load()) {
        return Error::Unavailable("The database is not ready yet");
    }
    return pool_.Run([](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        tx.exec1("SELECT 1");
    });
}

bool DatabaseSupervisor::WaitReady(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return wake_.wait_for(lock, timeout, [this] { return schema_ready_.load() || stop_.load(); }) &&
           schema_ready_.load();
}

}  // namespace orch::store
