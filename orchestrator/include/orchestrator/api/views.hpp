#pragma once

#include "common/json.hpp"
#include "common/json_writer.hpp"
#include "orchestrator/domain/attempt.hpp"
#include "orchestrator/domain/deployment.hpp"

#include <string>
#include <string_view>

namespace orch::api {

/// Writes the Deployment JSON of contract §1.5. `base_url` empty renders "links": [] (callback
/// bodies). The one definition of the view: lists write it row after row without a tree.
void WriteDeploymentView(JsonWriter& w, const domain::Deployment& d, std::string_view base_url);

/// The same view as a tree, for bodies that embed it (callbacks, schedule events).
Json DeploymentView(const domain::Deployment& d, const std::string& base_url);

/// The same view as response text.
std::string DeploymentViewText(const domain::Deployment& d, std::string_view base_url);

/// The provider the original names in its messages for a deployment of this kind ("SLURM" batch
/// jobs are the original's QCG).
std::string ContractProviderName(tosca::DeploymentKind kind);
/// Whether PUT can change a deployment of this kind: every kind but QCG (a submitted batch job
/// has nothing to change; the original refused Marathon and Chronos too, only for want of code).
bool TakesUpdates(const std::optional<tosca::DeploymentKind>& kind);
/// Whether start/stop can act on a deployment of this kind: not on QCG jobs (they run once);
/// Marathon apps and Kubernetes Deployments stop as 0 instances and start with their count again,
/// Chronos jobs are disabled and enabled again.
bool TakesActions(const std::optional<tosca::DeploymentKind>& kind);

/// The Resource JSON of contract §1.5.
Json ResourceView(const domain::Resource& r, const std::string& base_url);

/// One attempt as GET /deployments/{id}/attempts (and the last element of /extrainfo) show it.
Json AttemptView(const domain::Attempt& a);

}  // namespace orch::api
