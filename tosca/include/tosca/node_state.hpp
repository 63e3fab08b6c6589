#pragma once

#include <optional>
#include <string_view>

namespace orch::tosca {

/// The states of a node instance: TOSCA's normative node states as the contract names them
/// (NodeStates), plus STOPPED and DELETED [post-4.0.1]. The one list of them: a deployment's
/// resources (domain::NodeState) are these, and what a connector observes
/// (connectors::InstanceStatus) takes its values from them.
enum class NodeState {
    kInitial,
    kCreating,
    kCreated,
    kConfiguring,
    kConfigured,
    kStarting,
    kStarted,
    kStopping,
    kStopped,
    kDeleting,
    kDeleted,
    kError,
};
/// The contract's word (INITIAL, CREATING, ...).
std::string_view NodeStateName(NodeState state);
std::optional<NodeState> ParseNodeState(std::string_view name);

}  // namespace orch::tosca
