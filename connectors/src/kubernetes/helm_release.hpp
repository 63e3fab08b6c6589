#pragma once

#include "common/json.hpp"
#include "connectors/connector.hpp"
#include "connectors/kubernetes_connector.hpp"
#include "tosca/deployment_spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace orch::connectors::kubernetes {

/// Which Flux a site runs (catalogue service property `flux_version`).
enum class FluxVersion {
    kV1,  ///< Helm Operator: helm.fluxcd.io/v1 HelmRelease with the chart repository inline (the original)
    kV2,  ///< Flux v2: helm.toolkit.fluxcd.io/v2beta1 HelmRelease + a source.toolkit.fluxcd.io/v1beta2 HelmRepository
};

/// `flux_version` of the site: "v1" (default) or "v2"; anything else is the site's misconfiguration.
ConnectorResult<FluxVersion> FluxVersionOf(const SiteTarget& target);

/// The chart values of a HelmChart node: its `values` property, a YAML text (as the original) or
/// a map. The text is the user's: bounded in size, nesting and expanded nodes (aliases are
/// expanded once per reference), every failure a user error.
ConnectorResult<Json> HelmValues(const tosca::NodeSpec& node);

/// The objects of one HelmChart node in creation order: for Flux v2 the HelmRepository source,
/// then the HelmRelease `name` (also the Helm release name) in namespace `ns`.
ConnectorResult<std::vector<KubeManifest>> HelmManifests(
    const tosca::NodeSpec& node, const std::string& name, const std::string& ns, const SiteTarget& target
);

/// What a HelmRelease's status says.
struct HelmVerdict {
    bool ready = false;
    std::string waiting;             ///< the latest condition, for statusReason while not ready
    std::optional<Failure> failure;  ///< the release failed (the condition's message)
};

/// Judges a HelmRelease of either Flux: v1 by `status.phase`/`releaseStatus` and the `Released`
/// condition, v2 by the `Ready` condition (with `Released` for the reason) of the current generation.
HelmVerdict JudgeHelmRelease(const Json& release);

/// Attributes of a release from the Services its chart created (label
/// app.kubernetes.io/instance=<release>): `service_ports.<service>.<port>` = {source, target
/// (node port), protocol}, the service name without the "<release>-" prefix, as the original.
Json HelmServicePorts(const std::string& release, const Json& services);

}  // namespace orch::connectors::kubernetes
