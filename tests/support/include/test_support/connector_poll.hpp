#pragma once

#include <connectors/connector.hpp>
#include <tosca/deployment_spec.hpp>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>

namespace orch::test {

/// Polls `connector` every `interval` until `done` holds or `limit` passes and returns the last
/// observation. `before_each` runs before every poll (the real-Kubernetes rig plays kubelet
/// there). A Failure from Poll throws, so the test fails with the connector's own message.
/// Header-only: the real-server rigs link the connectors module, the support library does not.
inline connectors::Observation PollConnectorUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit,
    std::chrono::milliseconds interval,
    const std::function<void()>& before_each = {}
) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
        if (before_each) {
            before_each();
        }
        auto polled = connector.Poll(handle, spec);
        if (auto* failure = std::get_if<connectors::Failure>(&polled)) {
            throw std::runtime_error("Poll failed: " + failure->message);
        }
        connectors::Observation last = std::get<connectors::Observation>(std::move(polled));
        if (done(last) || std::chrono::steady_clock::now() > deadline) {
            return last;
        }
        std::this_thread::sleep_for(interval);
    }
}

}  // namespace orch::test
