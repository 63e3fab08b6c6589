#pragma once

// What the chaos runs share: a private PostgreSQL that can be restarted as a crash would, and an
// orchestrator process that can be killed with SIGKILL and started again on the same config.
#include "test_support/process.hpp"
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace orch::e2e::chaos {

inline int Shell(const std::string& script) {
    const std::string command = "bash -c '" + script + "' >/dev/null 2>&1";
    return std::system(command.c_str());  // NOLINT(cert-env33-c,concurrency-mt-unsafe): test setup
}

// A private PostgreSQL (scripts/lib/common.sh), so restarting it disturbs no other test.
class PrivatePg {
   public:
    PrivatePg() : dir_(orch::test::BinaryDir() + "/chaos-pg-" + orch::RandomUuid().substr(0, 8)) {
        // Default durability (no "fast": fsync and synchronous_commit on). With them off, the
        // immediate restart below loses commits already answered 201, which a real server keeps.
        if (Shell(Lib() + "pg_start " + dir_) != 0) {
            throw std::runtime_error("private PostgreSQL did not start in " + dir_);
        }
        dsn_ = orch::test::ReadFile(dir_ + "/dsn");
        dsn_.erase(dsn_.find_last_not_of("\n ") + 1);
    }
    ~PrivatePg() {
        Shell(Lib() + "pg_stop " + dir_);
        std::filesystem::remove_all(dir_);
    }
    PrivatePg(const PrivatePg&) = delete;
    PrivatePg& operator=(const PrivatePg&) = delete;

    /// Immediate stop (no checkpoint, like a crash) and start on the same port and options.
    bool Restart() {
        return Shell(
                   Lib() + "as_pg_user \"$PG_BIN/pg_ctl\" -D " + dir_ + "/data -l " + dir_ +
                   "/server.log -m immediate -w -t 60 restart && head -1 " + dir_ + "/data/postmaster.pid >" + dir_ +
                   "/pid"
               ) == 0;
    }
    const std::string& dsn() const { return dsn_; }

   private:
    static std::string Lib() { return "source " + orch::test::SourceDir() + "/scripts/lib/common.sh && "; }
    std::string dir_;
    std::string dsn_;
};

// The orchestrator, restartable: Kill() is SIGKILL, Start() a fresh process on the same config.
class Orchestrator {
   public:
    Orchestrator(std::string dsn, std::string config) : dsn_(std::move(dsn)), config_(std::move(config)) { Start(); }
    void Start() {
        process_.reset();
        process_ =
            std::make_unique<orch::test::OrchestratorProcess>(dsn_, std::map<std::string, std::string>{}, config_);
        const std::lock_guard lock(mutex_);
        url_ = process_->BaseUrl();
    }
    void Kill() { process_->process().Stop(SIGKILL, std::chrono::seconds(10)); }
    std::string Url() {
        const std::lock_guard lock(mutex_);
        return url_;
    }
    std::string Log() { return process_->process().Log(); }

   private:
    std::string dsn_;
    std::string config_;
    std::unique_ptr<orch::test::OrchestratorProcess> process_;
    std::mutex mutex_;
    std::string url_;
};

}  // namespace orch::e2e::chaos
