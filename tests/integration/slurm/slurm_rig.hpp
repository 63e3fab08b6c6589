#pragma once

#include <common/http_client.hpp>
#include <connectors/connector.hpp>
#include <connectors/site_client_factory.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace orch::test::slurm {

/// The Slurm cluster started by the `slurm` CTest fixture (scripts/slurm/start DIR).
struct Rig {
    std::string dir;    ///< DIR: config, logs, job output under DIR/jobs
    std::string url;    ///< slurmrestd base URL
    std::string user;   ///< the REST user
    std::string token;  ///< a JWT for that user from `scontrol token`
};

/// Reads the fixture's files; throws (failing the test) when the fixture did not run.
const Rig& TheRig();

/// A site target for the rig: partition "gpu", job output under DIR/jobs.
connectors::SiteTarget Target();

/// A tosca.nodes.indigo.Qcg.Job node running `command`.
tosca::NodeSpec JobNode(const std::string& name, const std::string& command);

/// A new deployment id for each test, so tests never see each other's jobs.
std::string NewDeploymentId();

http::Client& Client();
/// Every site through Client().
connectors::SiteClientFactory& Clients();

/// Polls every 250 ms until `done` holds or `limit` passes; returns the last observation.
/// A Failure from Poll throws, failing the test with its message.
connectors::Observation PollUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit
);

}  // namespace orch::test::slurm
