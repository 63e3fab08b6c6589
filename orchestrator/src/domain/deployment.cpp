#include "orchestrator/domain/deployment.hpp"

#include <array>
#include <cstdio>
#include <ctime>

namespace orch::domain {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 10> kStatusNames = {{
    {Status::kCreateInProgress, "CREATE_IN_PROGRESS"},
    {Status::kCreateComplete, "CREATE_COMPLETE"},
    {Status::kCreateFailed, "CREATE_FAILED"},
    {Status::kUpdateInProgress, "UPDATE_IN_PROGRESS"},
    {Status::kUpdateComplete, "UPDATE_COMPLETE"},
    {Status::kUpdateFailed, "UPDATE_FAILED"},
    {Status::kDeleteInProgress, "DELETE_IN_PROGRESS"},
    {Status::kDeleteComplete, "DELETE_COMPLETE"},
    {Status::kDeleteFailed, "DELETE_FAILED"},
    {Status::kUnknown, "UNKNOWN"},
}};

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

std::string_view StatusName(Status status) {
    for (const auto& [s, name] : kStatusNames) {
        if (s == status) {
            return name;
        }
    }
    return "UNKNOWN";
}

std::optional<Status> ParseStatus(std::string_view name) {
    for (const auto& [s, n] : kStatusNames) {
        if (n == name) {
            return s;
        }
    }
    return std::nullopt;
}

std::string_view TaskName(Task task) { return task == Task::kDeployer ? "DEPLOYER" : "NONE"; }

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

bool IsTerminal(Status status) {
    return status == Status::kCreateComplete || status == Status::kCreateFailed || status == Status::kUpdateComplete ||
           status == Status::kUpdateFailed || status == Status::kDeleteComplete || status == Status::kDeleteFailed;
}

std::string FormatContractTime(TimePoint t) {
    const std::time_t secs = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d+0000", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min);
    return buf;
}

}  // namespace orch::domain
