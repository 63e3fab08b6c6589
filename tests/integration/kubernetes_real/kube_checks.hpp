#pragma once

#include <common/json.hpp>
#include <connectors/connector.hpp>
#include <connectors/kubernetes_connector.hpp>
#include <connectors/workload.hpp>
#include <tosca/deployment_spec.hpp>

#include <string>
#include <vector>

/// Steps and checks the real-tier tests share (kubernetes_real_test.cpp, templates_real_test.cpp):
/// one deployment's lifetime through the connector, and what the real server kept of it.
namespace orch::test::kube {

/// One deployment of a test. The nodes are registered before anything is created, so the
/// scheduler never sees a pod before them. Whatever a failed test leaves is removed at the end
/// (pods at once, as they would keep GPUs the next test needs), even where the test did not get
/// to its own delete.
struct Deployment {
    tosca::DeploymentSpec spec;
    connectors::DeployRequest request;

    Deployment(std::vector<tosca::NodeSpec> nodes, connectors::SiteTarget target);
    /// A spec the TOSCA engine built from a template (its nodes and kind as they are).
    Deployment(tosca::DeploymentSpec built, connectors::SiteTarget target);
    Deployment(const Deployment&) = delete;
    Deployment& operator=(const Deployment&) = delete;
    ~Deployment();
};

/// Create through the connector; a Failure fails the test with its message.
connectors::Handle MustCreate(connectors::KubernetesConnector& connector, const connectors::DeployRequest& request);

/// Update through the connector; a Failure fails the test with its message.
connectors::Handle MustUpdate(
    connectors::KubernetesConnector& connector,
    const connectors::Handle& handle,
    const connectors::DeployRequest& request
);

/// Not in progress any more (ready, failed or gone).
bool Settled(const connectors::Observation& o);

/// Deletes through the connector and waits until the namespace itself is gone from the server.
void DeleteAndWaitGone(
    connectors::KubernetesConnector& connector, const connectors::Handle& handle, const tosca::DeploymentSpec& spec
);

/// The first pod labelled app.kubernetes.io/name=`app` in namespace `ns`, as the server has it.
Json PodOf(const std::string& ns, const std::string& app);

/// The status ("True", "False", ...) of condition `type` of `object`, or "" when it has none.
std::string ConditionStatus(const Json& object, const std::string& type);

/// Where `stored` lacks or changed something of `sent`, as "/path" entries: a 1.20 server
/// silently drops fields it does not know (no strict field validation before 1.25), so this is
/// how a misplaced or misspelt field shows. Quantities sent as numbers come back as strings
/// ("1"); zero values (false, 0, "", empty) are omitted from the answer by design.
std::vector<std::string> Dropped(const Json& sent, const Json& stored, const std::string& path);

/// Every field the connector wrote for `request` is kept by the real server.
void CheckNothingDropped(const connectors::DeployRequest& request);

/// Instances of `node` the observation shows started.
int CountStarted(const connectors::Observation& obs, const std::string& node);

}  // namespace orch::test::kube
