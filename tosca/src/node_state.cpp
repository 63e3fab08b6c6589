#include "tosca/node_state.hpp"

#include <array>
#include <utility>

namespace orch::tosca {
namespace {

constexpr std::array<std::pair<NodeState, std::string_view>, 12> kNodeStateNames = {{
    {NodeState::kInitial, "INITIAL"},
    {NodeState::kCreating, "CREATING"},
    {NodeState::kCreated, "CREATED"},
    {NodeState::kConfiguring, "CONFIGURING"},
    {NodeState::kConfigured, "CONFIGURED"},
    {NodeState::kStarting, "STARTING"},
    {NodeState::kStarted, "STARTED"},
    {NodeState::kStopping, "STOPPING"},
    {NodeState::kStopped, "STOPPED"},
    {NodeState::kDeleting, "DELETING"},
    {NodeState::kDeleted, "DELETED"},
    {NodeState::kError, "ERROR"},
}};

}  // namespace

std::string_view NodeStateName(NodeState state) {
    for (const auto& [s, name] : kNodeStateNames) {
        if (s == state) {
            return name;
        }
    }
    return "ERROR";
}

std::optional<NodeState> ParseNodeState(std::string_view name) {
    for (const auto& [s, n] : kNodeStateNames) {
        if (n == name) {
            return s;
        }
    }
    return std::nullopt;
}

}  // namespace orch::tosca
