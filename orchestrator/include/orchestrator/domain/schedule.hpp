#pragma once

#include "common/json.hpp"
#include "orchestrator/domain/deployment.hpp"

#include <optional>
#include <string>

namespace orch::domain {

/// A deployment schedule (contract §1.5, §3.17): deploy `template_text` once for every new file
/// whose "scope:name" matches `file_expression`. Only RUNNING exists here: there is no API to
/// suspend a schedule, in the original either.
struct Schedule {
    std::string id;
    TimePoint created_at{};
    TimePoint updated_at{};
    std::string status = "RUNNING";  ///< DeploymentScheduleStatus: RUNNING or SUSPENDED
    std::string file_expression;
    std::string replication_expression;
    int number_of_replicas = 0;
    std::string callback;  ///< empty = absent
    std::optional<Owner> owner;
    std::string template_text;
    Json parameters = Json::object();
    /// The request's forced target (`targetProvider`, `targetRegion`), which every deployment
    /// the schedule creates carries. Empty = any.
    std::string target_provider;
    std::string target_region;
    /// The lease (minutes from their creation) of the deployments its events create
    /// (`deploymentExpiresAfterMins`); none: the default lease, as a create without expiresAt.
    std::optional<int> deployment_expires_after_mins;
};

/// One file that triggered a schedule, and the deployment it created.
struct ScheduleEvent {
    std::string id;
    std::string schedule_id;
    TimePoint created_at{};
    TimePoint updated_at{};
    std::string scope;
    std::string name;
    std::string replication_status;        ///< OK, REPLICATING, STUCK; empty = absent
    std::optional<Deployment> deployment;  ///< absent once the deployment row was deleted
};

}  // namespace orch::domain
