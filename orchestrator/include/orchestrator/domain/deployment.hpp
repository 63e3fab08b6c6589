#pragma once

#include "common/json.hpp"
#include "tosca/deployment_spec.hpp"
#include "tosca/node_state.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::domain {

using TimePoint = std::chrono::system_clock::time_point;

/// Deployment status, exactly the contract's names (§4.1).
enum class Status {
    kCreateInProgress,
    kCreateComplete,
    kCreateFailed,
    kUpdateInProgress,
    kUpdateComplete,
    kUpdateFailed,
    kDeleteInProgress,
    kDeleteComplete,
    kDeleteFailed,
    kUnknown,
};
std::string_view StatusName(Status status);
std::optional<Status> ParseStatus(std::string_view name);

enum class Task { kNone, kDeployer };
std::string_view TaskName(Task task);

/// Resource (node instance) state: the one list of node states (tosca/node_state.hpp).
using NodeState = tosca::NodeState;
using tosca::NodeStateName;
using tosca::ParseNodeState;

/// What the end of a deployment's lease does (docs/lifecycle.md "Leases").
enum class LeaseAction { kDelete, kStop };
std::string_view LeaseActionName(LeaseAction action);  ///< "delete" | "stop"
std::optional<LeaseAction> ParseLeaseAction(std::string_view name);

struct Owner {
    std::string issuer;
    std::string subject;
    /// Contact details from the creator's token (`preferred_username`, `email`), kept only for
    /// what the original sends the site (IM's PAAS_DEP_USER / PAAS_DEP_USER_EMAIL VM tags); not
    /// part of the identity (scoping compares issuer and subject only). Empty when unknown.
    std::string name = {};
    std::string email = {};
};

/// What a create/update request asked for, as stored.
struct RequestOptions {
    std::optional<int> timeout_mins;
    std::optional<int> provider_timeout_mins;
    std::optional<int> max_providers_retry;
    /// Create only (`perProviderMaxRetries`, the 2025 rewrite's per-provider retries): tries on
    /// each provider before the next one, 1 to 10. None: one try, as the original.
    std::optional<int> per_provider_max_retries;
    /// Create only (`maxWaitMins`): the longest the request may wait in the admission queue
    /// before it fails with the queued reason; workflow.admission_max_wait bounds it.
    std::optional<int> max_wait_mins;
    bool keep_last_attempt = false;
    /// `selfHealing` (docs/lifecycle.md "Self-healing"): redeploy elsewhere when the site or the
    /// workload is lost. None: the request did not say (the group's SLA or the operator decides).
    std::optional<bool> self_healing;
    /// Optional forced target (create only): placement considers only this provider (id or
    /// name) and/or region. Empty = any.
    std::string target_provider;
    std::string target_region;
};

struct Deployment {
    std::string id;
    TimePoint created_at{};
    TimePoint updated_at{};
    Status status = Status::kCreateInProgress;
    std::string status_reason;  ///< empty = absent
    Task task = Task::kNone;
    std::string physical_id;
    std::string callback;
    std::string user_group;
    std::optional<Owner> owner;
    std::string cloud_provider_name;
    Json cloud_provider_endpoint;  ///< null = absent
    Json outputs = Json::object();
    std::string template_text;
    Json parameters = Json::object();
    RequestOptions options;
    /// The target kind its template needs (stored as its DeploymentKindName); none for rows
    /// written before kinds were recorded.
    std::optional<tosca::DeploymentKind> kind;
    /// Resources asked for, summed over instances (used by quotas).
    double req_cpus = 0;
    std::int64_t req_mem_mb = 0;
    int req_gpus = 0;
    int req_instances = 0;
    /// When the lease ends (expiresAt; docs/lifecycle.md "Leases"); none = no lease.
    std::optional<TimePoint> expires_at;
    LeaseAction lease_action = LeaseAction::kDelete;  ///< the group's policy when the lease was set
};

struct Resource {
    std::string id;
    std::string deployment_id;
    TimePoint created_at{};
    TimePoint updated_at{};
    std::string physical_id;
    NodeState state = NodeState::kInitial;
    std::string node_type;
    std::string node_name;
    std::vector<std::string> type_chain;
    int instance_index = 0;
    Json metadata = Json::object();
};

bool IsTerminal(Status status);

/// The text of a contract time in a fixed buffer: views use it without allocating.
struct ContractTimeText {
    std::array<char, 32> chars{};
    std::size_t size = 0;
    std::string_view view() const { return {chars.data(), size}; }
};

/// "2024-03-01T09:56+0000": UTC, minute precision, offset without colon (contract §1.2).
ContractTimeText ContractTime(TimePoint t);
std::string FormatContractTime(TimePoint t);

}  // namespace orch::domain
