// The e2e tiers' one wait loop: read a deployment until it is where the test wants it.
#pragma once

#include <common/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace orch::test {

struct Polled {
    Json last;             ///< the last body read (null when none could be read)
    bool reached = false;  ///< `done` held for `last` before the timeout
};

/// Calls `read` (the deployment's body, or nullopt when this read failed, e.g. a 404 while it is
/// created) every `interval` until `done` holds for a body or `timeout` has passed. The callers
/// decide how a miss fails (FAIL with their own context, or return the last body to check).
inline Polled PollDeployment(
    const std::function<std::optional<Json>()>& read,
    const std::function<bool(const Json&)>& done,
    std::chrono::milliseconds timeout,
    std::chrono::milliseconds interval = std::chrono::milliseconds(100)
) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    Polled polled;
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto body = read()) {
            polled.last = std::move(*body);
            if (done(polled.last)) {
                polled.reached = true;
                return polled;
            }
        }
        std::this_thread::sleep_for(interval);
    }
    return polled;
}

/// `done` for PollDeployment: the deployment's status is `status`.
inline std::function<bool(const Json&)> HasStatus(std::string status) {
    return [status = std::move(status)](const Json& body) {
        return body.value("status", "") == status;
    };
}

}  // namespace orch::test
