#pragma once

// A throwaway Prometheus (the Debian package, started by scripts/prometheus/start) scraping one
// target every second; stopped by its PID, by the script, when the object dies.
#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace orch::test {

class RealPrometheus {
   public:
    explicit RealPrometheus(const std::string& target)
        : dir_(BinaryDir() + "/prometheus-" + RandomUuid().substr(0, 8)) {
        const std::string command = SourceDir() + "/scripts/prometheus/start " + dir_ + " " + target + " 1s";
        started_ = std::system(command.c_str()) == 0;  // NOLINT(cert-env33-c,concurrency-mt-unsafe): test setup
        if (started_) {
            url_ = ReadFile(dir_ + "/url");
            url_.erase(url_.find_last_not_of("\r\n") + 1);
        }
    }
    ~RealPrometheus() {
        const std::string command = SourceDir() + "/scripts/prometheus/stop " + dir_;
        [[maybe_unused]] const int rc = std::system(command.c_str());  // NOLINT(cert-env33-c,concurrency-mt-unsafe)
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    RealPrometheus(const RealPrometheus&) = delete;
    RealPrometheus& operator=(const RealPrometheus&) = delete;

    bool started() const { return started_; }
    const std::string& url() const { return url_; }

   private:
    std::string dir_;
    std::string url_;
    bool started_ = false;
};

}  // namespace orch::test
