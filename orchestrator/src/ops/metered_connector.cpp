#include "orchestrator/ops/metered_connector.hpp"

#include <chrono>
#include <variant>

namespace orch::ops {
namespace {

using connectors::ConnectorResult;
using connectors::Failure;
using connectors::FailureKind;

std::string_view OutcomeOf(const Failure& failure) {
    switch (failure.kind) {
        case FailureKind::kRetryHere:
            return "retry_here";
        case FailureKind::kTryAnotherSite:
            return "try_another_site";
        case FailureKind::kUserError:
            return "user_error";
    }
    return "failure";
}

class MeteredConnector final : public connectors::Connector {
   public:
    MeteredConnector(
        connectors::Connector& inner,
        metrics::Family<metrics::Counter>& calls,
        metrics::Family<metrics::Histogram>& latency
    )
        : inner_(inner), calls_(calls), latency_(latency) {}

    connectors::TargetKind kind() const override { return inner_.kind(); }

    ConnectorResult<connectors::Handle> Create(const connectors::DeployRequest& request) override {
        return Timed("create", request.target, [&] { return inner_.Create(request); });
    }
    ConnectorResult<connectors::Observation> Poll(const connectors::Handle& handle, const tosca::DeploymentSpec& spec)
        override {
        return Timed("poll", handle.target, [&] { return inner_.Poll(handle, spec); });
    }
    ConnectorResult<connectors::Handle> Update(
        const connectors::Handle& handle, const connectors::DeployRequest& request
    ) override {
        return Timed("update", handle.target, [&] { return inner_.Update(handle, request); });
    }
    ConnectorResult<connectors::Deletion> Delete(const connectors::Handle& handle, bool force) override {
        return Timed("delete", handle.target, [&] { return inner_.Delete(handle, force); });
    }
    ConnectorResult<connectors::Restored> RollBack(const connectors::Handle& handle) override {
        return Timed("rollback", handle.target, [&] { return inner_.RollBack(handle); });
    }
    ConnectorResult<std::string> SiteVersion(const connectors::SiteTarget& target) override {
        return Timed("version", target, [&] { return inner_.SiteVersion(target); });
    }
    ConnectorResult<bool> Act(
        const connectors::Handle& handle, const std::string& physical_id, const std::string& action
    ) override {
        return Timed("act", handle.target, [&] { return inner_.Act(handle, physical_id, action); });
    }

   private:
    template <typename Call>
    auto Timed(const char* operation, const connectors::SiteTarget& target, Call&& call) -> decltype(call()) {
        const auto start = std::chrono::steady_clock::now();
        auto result = call();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string kind(connectors::TargetKindName(inner_.kind()));
        const auto* failure = std::get_if<Failure>(&result);
        const std::string outcome(failure == nullptr ? std::string_view("ok") : OutcomeOf(*failure));
        // Sites come from the catalogue (bounded by it, and by the family's series limit).
        calls_.With({target.site_id, kind, operation, outcome}).Inc();
        latency_.With({target.site_id, kind, operation}).Observe(seconds);
        return result;
    }

    connectors::Connector& inner_;
    metrics::Family<metrics::Counter>& calls_;
    metrics::Family<metrics::Histogram>& latency_;
};

}  // namespace

MeteredConnectorRegistry::MeteredConnectorRegistry(connectors::ConnectorRegistry& inner, metrics::Registry& registry)
    : inner_(inner),
      calls_(registry.AddCounter(
          "orch_connector_calls_total",
          "Connector calls by site, kind, operation and outcome",
          {"site", "kind", "operation", "outcome"}
      )),
      latency_(registry.AddHistogram(
          "orch_connector_call_duration_seconds",
          "Connector call latency by site, kind and operation",
          {"site", "kind", "operation"},
          metrics::LatencyBuckets()
      )) {}

MeteredConnectorRegistry::~MeteredConnectorRegistry() = default;

connectors::Connector* MeteredConnectorRegistry::Find(connectors::TargetKind kind) {
    connectors::Connector* found = inner_.Find(kind);
    if (found == nullptr) {
        return nullptr;
    }
    const std::lock_guard lock(mutex_);
    auto& slot = wrapped_[found];
    if (!slot) {
        slot = std::make_unique<MeteredConnector>(*found, calls_, latency_);
    }
    return slot.get();
}

}  // namespace orch::ops
