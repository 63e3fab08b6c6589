#pragma once

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <connectors/connector.hpp>
#include <connectors/site_client_factory.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace orch::test::kube {

/// The control plane started by the `kube` CTest fixture (scripts/kube/start DIR).
struct Rig {
    std::string dir;
    std::string url;                  ///< https://127.0.0.1:<port>
    std::string ca_file;              ///< the rig's private CA (it signed the serving certificate)
    std::string admin_token;          ///< system:masters, for the harness and the fake kubelet
    std::string token;                ///< the connector's bearer token (user "orchestrator")
    std::string cert_file, key_file;  ///< the connector's client certificate ("orchestrator-cert")
};

/// Reads the fixture's files. When the fixture skipped (binaries not built) it prints why and
/// exits with 77, which CTest reports as skipped; when the fixture did not run at all it throws.
const Rig& TheRig();

/// A Kubernetes site target for the rig, authenticated by bearer token or client certificate.
connectors::SiteTarget TokenTarget();
connectors::SiteTarget CertTarget();

/// Clients for the connector: per-site TLS clients for the rig's CA and client certificate.
connectors::SiteClientFactory& Clients();

/// One answered call made by the harness with the admin token.
struct Answer {
    int status = 0;
    Json body;
};

/// A harness call to the API server (not through the connector under test). Transport errors
/// throw, failing the test.
Answer AdminCall(
    const std::string& method,
    const std::string& path,
    const Json* body = nullptr,
    const std::string& content_type = "application/json"
);

/// Polls the connector every 250 ms until `done` holds or `limit` passes, running one fake
/// kubelet pass over the handle's namespace before each poll; returns the last observation.
/// A Failure from Poll throws, failing the test with its message.
connectors::Observation PollUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit
);

}  // namespace orch::test::kube
