#pragma once

#include "common/metrics.hpp"
#include "connectors/connector.hpp"

#include <map>
#include <memory>
#include <mutex>

namespace orch::ops {

/// A ConnectorRegistry that hands out connectors wrapped to count calls by site, kind, operation
/// and outcome and to record their latency (orch_connector_calls_total,
/// orch_connector_call_duration_seconds). No connector is edited: main passes this registry to
/// the workflow instead of the concrete one.
class MeteredConnectorRegistry final : public connectors::ConnectorRegistry {
   public:
    MeteredConnectorRegistry(connectors::ConnectorRegistry& inner, metrics::Registry& registry);
    ~MeteredConnectorRegistry() override;
    MeteredConnectorRegistry(const MeteredConnectorRegistry&) = delete;
    MeteredConnectorRegistry& operator=(const MeteredConnectorRegistry&) = delete;
    connectors::Connector* Find(connectors::TargetKind kind) override;

   private:
    connectors::ConnectorRegistry& inner_;
    metrics::Family<metrics::Counter>& calls_;
    metrics::Family<metrics::Histogram>& latency_;
    std::mutex mutex_;
    std::map<connectors::Connector*, std::unique_ptr<connectors::Connector>> wrapped_;
};

}  // namespace orch::ops
