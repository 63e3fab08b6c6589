#pragma once

#include "connectors/connector.hpp"
#include "tosca/deployment_spec.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace orch::connectors {

inline constexpr std::string_view kMarathonAppType = "tosca.nodes.indigo.Container.Application.Docker.Marathon";
inline constexpr std::string_view kChronosJobType = "tosca.nodes.indigo.Container.Application.Docker.Chronos";
inline constexpr std::string_view kKubernetesAppType = "tosca.nodes.indigo.Container.Application.Docker.Kubernetes";
inline constexpr std::string_view kKubernetesDeploymentType = "tosca.nodes.indigo.Kubernetes.Deployment";
inline constexpr std::string_view kKubernetesJobType = "tosca.nodes.indigo.Kubernetes.Job";
inline constexpr std::string_view kHelmChartType = "tosca.nodes.indigo.Kubernetes.HelmChart";

/// True when the node's type or one of its ancestors is `type` (full names).
bool HasType(const tosca::NodeSpec& node, std::string_view type);

/// The spec's nodes of any of `types`, in template order. Each connector picks its own nodes,
/// so it does not depend on how the spec's kind was decided.
std::vector<const tosca::NodeSpec*> NodesOfTypes(
    const tosca::DeploymentSpec& spec, std::initializer_list<std::string_view> types
);

/// `nodes` ordered so that every node comes after those of `nodes` it depends on (given order
/// otherwise); a dependency cycle is a user error.
ConnectorResult<std::vector<const tosca::NodeSpec*>> DependencyOrder(const std::vector<const tosca::NodeSpec*>& nodes);

/// `command` followed by `arguments`, each argument single-quoted for /bin/sh.
std::string ShellJoin(const std::string& command, const std::vector<std::string>& arguments);

/// The GPU model as a Mesos LIKE constraint value (a Java regex matched against the whole
/// agent attribute): case-insensitive, the model anywhere in the value, spaces, '-' and '_'
/// interchangeable ("Tesla V100" matches "tesla-v100-pcie").
std::string GpuModelRegex(const std::string& model);

/// A site option as a string / bool / list of strings (absent or of another type: fallback).
std::string OptionString(const SiteTarget& target, const std::string& key, const std::string& fallback = "");
bool OptionBool(const SiteTarget& target, const std::string& key, bool fallback);
std::vector<std::string> OptionList(const SiteTarget& target, const std::string& key);

/// A property of a node as a string / int (absent or of another type: fallback).
std::string PropertyString(const tosca::NodeSpec& node, const std::string& key, const std::string& fallback = "");
int PropertyInt(const tosca::NodeSpec& node, const std::string& key, int fallback);

}  // namespace orch::connectors
