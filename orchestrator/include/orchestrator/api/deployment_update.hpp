#pragma once

// The one path by which a deployment's template or worker counts change: PUT /deployments/{id}
// and the elastic-cluster autoscaler both go through it, so an automatic scale is bounded,
// checked against the site and planned exactly as a manual one.
#include "common/result.hpp"
#include "orchestrator/api/api_context.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/domain/event.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace orch::api {

struct DeploymentChange {
    std::string template_text;
    Json parameters = Json::object();  ///< the new ones, merged over the stored ones
    std::string callback;              ///< empty = unchanged
    domain::RequestOptions options;
    std::optional<domain::TimePoint> expires_at;  ///< a new lease end; unset = unchanged
    std::vector<domain::Event> events;            ///< recorded with the update (an elastic scale's)
};

/// Builds the new spec (the stored parameters count as accepted), checks the instance cap and
/// the site's capacity, plans the resources to add and remove, runs `before_commit` (PUT hands
/// the caller's token over there) and stores the update with its workflow job.
Status BeginDeploymentUpdate(
    ApiContext& ctx,
    const domain::Deployment& d,
    const DeploymentChange& change,
    const std::function<Status()>& before_commit = {}
);

}  // namespace orch::api
