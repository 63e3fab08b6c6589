#include "connectors/registry.hpp"

namespace orch::connectors {

void OwningConnectorRegistry::Register(std::unique_ptr<Connector> connector) {
    if (connector) {
        const TargetKind kind = connector->kind();
        connectors_[kind] = std::move(connector);
    }
}

Connector* OwningConnectorRegistry::Find(TargetKind kind) {
    const auto it = connectors_.find(kind);
    return it == connectors_.end() ? nullptr : it->second.get();
}

}  // namespace orch::connectors
