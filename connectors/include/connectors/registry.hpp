#pragma once

#include "connectors/connector.hpp"

#include <map>
#include <memory>

namespace orch::connectors {

/// The registry main fills once at startup with the concrete connectors, then hands out by
/// reference. Registration is not synchronised: finish it before the workflow starts.
class OwningConnectorRegistry final : public ConnectorRegistry {
   public:
    /// Adds a connector; registering a second one of the same kind replaces the first.
    void Register(std::unique_ptr<Connector> connector);
    /// The connector for `kind`, or null when none was registered.
    Connector* Find(TargetKind kind) override;
    std::size_t size() const { return connectors_.size(); }

   private:
    std::map<TargetKind, std::unique_ptr<Connector>> connectors_;
};

}  // namespace orch::connectors
