#include "slurm_rig.hpp"

#include <common/uuid.hpp>

#include <test_support/connector_poll.hpp>
#include <test_support/test_env.hpp>

#include <stdexcept>
#include <thread>

namespace orch::test::slurm {
const Rig& TheRig() {
    static const Rig rig = [] {
        Rig r;
        r.dir = BinaryDir() + "/test-slurm";
        const auto value = [&r](const char* file) {
            return ReadRigValue(r.dir, file, "Slurm test cluster", "slurm");
        };
        r.url = value("url");
        r.user = value("user");
        r.token = value("token");
        return r;
    }();
    return rig;
}

connectors::SiteTarget Target() {
    const Rig& rig = TheRig();
    connectors::SiteTarget target;
    target.site_id = "hpc-test";
    target.service_id = "hpc-test-slurm";
    target.kind = connectors::TargetKind::kSlurm;
    target.endpoint = rig.url;
    target.options = {
        {"partition", "gpu"}, {"working_directory", rig.dir + "/jobs"}, {"gpu_types", {{"Tesla V100", "v100"}}}};
    target.credentials.username = rig.user;
    target.credentials.bearer_token = rig.token;
    return target;
}

tosca::NodeSpec JobNode(const std::string& name, const std::string& command) {
    tosca::NodeSpec node;
    node.name = name;
    node.type = "tosca.nodes.indigo.Qcg.Job";
    node.type_chain = {"tosca.nodes.indigo.Qcg.Job", "tosca.nodes.indigo.Batch.Job", "tosca.nodes.Root"};
    node.command = command;
    return node;
}

std::string NewDeploymentId() {
    return RandomUuid();
}

http::Client& Client() {
    static const std::unique_ptr<http::Client> client = [] {
        auto made = http::MakeClient({});
        if (!made) {
            throw std::runtime_error(made.error().message);
        }
        return std::move(*made);
    }();
    return *client;
}

connectors::SiteClientFactory& Clients() {
    static connectors::SharedClientFactory factory(Client());
    return factory;
}

connectors::Observation PollUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit
) {
    return PollConnectorUntil(connector, handle, spec, done, limit, std::chrono::milliseconds(500));
}

}  // namespace orch::test::slurm
