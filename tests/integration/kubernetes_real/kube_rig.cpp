#include "kube_rig.hpp"

#include "fake_kubelet.hpp"

#include <test_support/connector_poll.hpp>
#include <test_support/test_env.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>

namespace orch::test::kube {
namespace {

// Must match KUBE_SKIP_STATUS in scripts/kube/lib.sh and SKIP_RETURN_CODE in sources.cmake.
constexpr int kSkipStatus = 77;

std::unique_ptr<http::Client> MustMakeClient(const http::ClientOptions& options) {
    auto made = http::MakeClient(options);
    if (!made) {
        throw std::runtime_error(made.error().message);
    }
    return std::move(*made);
}

http::Client& AdminClient() {
    static const std::unique_ptr<http::Client> client = [] {
        http::ClientOptions options;
        options.ca_file = TheRig().ca_file;
        return MustMakeClient(options);
    }();
    return *client;
}

}  // namespace

const Rig& TheRig() {
    static const Rig rig = [] {
        Rig r;
        r.dir = BinaryDir() + "/test-kube";
        if (std::filesystem::exists(r.dir + "/skipped")) {
            // Catch2 v2 has no skip; the whole process stands for one test case under CTest.
            // _Exit: nothing needs cleaning up, and an exit-time leak check (ASan build) would
            // judge a process stopped halfway through a test.
            std::cout << "SKIPPED: " << ReadFile(r.dir + "/skipped") << std::flush;
            std::_Exit(kSkipStatus);
        }
        const auto value = [&r](const char* file) {
            return ReadRigValue(r.dir, file, "Kubernetes control plane", "kube");
        };
        r.url = value("url");
        r.admin_token = value("admin-token");
        r.token = value("token");
        r.ca_file = r.dir + "/pki/ca.crt";
        r.cert_file = r.dir + "/pki/orchestrator.crt";
        r.key_file = r.dir + "/pki/orchestrator.key";
        return r;
    }();
    return rig;
}

connectors::SiteTarget TokenTarget() {
    const Rig& rig = TheRig();
    connectors::SiteTarget target;
    target.site_id = "kube-test";
    target.service_id = "kube-test-k8s";
    target.kind = connectors::TargetKind::kKubernetes;
    target.endpoint = rig.url;
    target.options = {
        {"namespace_prefix", "orch"},
        {"worker_nodes_ip", {"127.0.0.1"}},
        {"gpu_products", {{"Tesla V100", {kubelet::kGpuProduct}}}}};
    target.credentials.ca_file = rig.ca_file;
    target.credentials.bearer_token = rig.token;
    return target;
}

connectors::SiteTarget CertTarget() {
    connectors::SiteTarget target = TokenTarget();
    target.credentials.bearer_token.clear();
    target.credentials.client_cert_file = TheRig().cert_file;
    target.credentials.client_key_file = TheRig().key_file;
    return target;
}

connectors::SiteClientFactory& Clients() {
    // The shared client would only reach publicly trusted sites; every rig target names its CA.
    static const std::unique_ptr<http::Client> shared = MustMakeClient({});
    static connectors::TlsClientFactory factory(*shared, http::ClientOptions{});
    return factory;
}

Answer AdminCall(
    const std::string& method, const std::string& path, const Json* body, const std::string& content_type
) {
    http::ClientRequest request;
    request.method = method;
    request.url = TheRig().url + path;
    request.headers = {{"Authorization", "Bearer " + TheRig().admin_token}, {"Accept", "application/json"}};
    if (body != nullptr) {
        request.headers.emplace_back("Content-Type", content_type);
        request.body = body->dump();
    }
    auto response = AdminClient().Send(request);
    if (!response) {
        throw std::runtime_error(method + " " + path + ": " + response.error().message);
    }
    Answer answer{response->status, Json::object()};
    if (!response->body.empty()) {
        answer.body = Json::parse(response->body, nullptr, false);
    }
    return answer;
}

connectors::Observation PollUntil(
    connectors::Connector& connector,
    const connectors::Handle& handle,
    const tosca::DeploymentSpec& spec,
    const std::function<bool(const connectors::Observation&)>& done,
    std::chrono::seconds limit
) {
    return PollConnectorUntil(connector, handle, spec, done, limit, std::chrono::milliseconds(250), [&handle] {
        kubelet::Pass(handle.physical_id);
    });
}

}  // namespace orch::test::kube
