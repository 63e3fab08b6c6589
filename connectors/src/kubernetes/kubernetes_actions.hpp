#pragma once

#include "connectors/connector.hpp"
#include "connectors/rest_client.hpp"

#include <string>

namespace orch::connectors::kubernetes {

/// Where a stopped Deployment keeps the replica count it had, so that a start gives it back:
/// on the site's object, not in the orchestrator, as the Marathon connector keeps it in a label.
inline constexpr char kStoppedReplicasAnnotation[] = "orchestrator.indigo-datacloud.eu/stopped-replicas";

/// How many replicas the stopped Deployment `deployment` had (its annotation, bounded), or 0 when
/// it is not stopped (replicas above 0, no annotation, or one that is not a count).
int StoppedReplicas(const Json& deployment);

/// Stops (scales to 0, remembering the count) or starts (scales back) the Deployment whose pod
/// is or was `physical_id`: the Deployment of the handle whose name is the longest prefix
/// "<name>-" of the pod's name. Already in the wanted state: true, nothing sent. Another kind
/// of workload (Job, CronJob, HelmRelease) or no such Deployment: kUserError.
ConnectorResult<bool> StartStopDeployment(
    RestClient& rest, const Handle& handle, const std::string& physical_id, bool start
);

}  // namespace orch::connectors::kubernetes
