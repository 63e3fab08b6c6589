#pragma once

#include <common/http_client.hpp>
#include <common/json.hpp>
#include <connectors/connector.hpp>
#include <connectors/site_client_factory.hpp>
#include <tosca/deployment_spec.hpp>

#include <sim/schema_store.hpp>
#include <sim/site_sim.hpp>

#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace orch::connectors::test {

/// An http::Client that hands requests to an in-process SiteSim (no sockets): the host names
/// marathon.sim, chronos.sim and k8s.sim select the API. Resets and slow replies become the
/// transport errors a real client would return.
class SimHttpClient final : public http::Client {
   public:
    explicit SimHttpClient(sim::SiteSim& site) : site_(site) {}

    Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
        auto url = http::ParseUrl(request.url);
        if (!url) {
            return url.error();
        }
        sim::SimApi api = sim::SimApi::kMarathon;
        if (url->host == "chronos.sim") {
            api = sim::SimApi::kChronos;
        } else if (url->host == "k8s.sim") {
            api = sim::SimApi::kKubernetes;
        } else if (url->host == "im.sim") {
            api = sim::SimApi::kIm;
        } else if (url->host != "marathon.sim") {
            return Error::Unavailable("cannot resolve " + url->host);
        }
        {
            const std::lock_guard lock(mutex_);
            sent_.push_back(request);
        }
        auto response =
            site_.Handle(api, sim::MakeSimRequest(request.method, url->target, request.body, request.headers));
        if (response.reset) {
            return Error::Unavailable("cannot read from " + url->host + ": connection reset by peer");
        }
        if (response.delay > request.timeout) {
            return Error::DeadlineExceeded("timed out waiting for " + url->host);
        }
        http::ClientResponse out;
        out.status = response.status;
        out.body = response.body;
        out.headers = response.headers;
        if (!response.content_type.empty()) {
            out.headers.emplace_back("Content-Type", response.content_type);
        }
        return out;
    }

    std::vector<http::ClientRequest> Sent() {
        const std::lock_guard lock(mutex_);
        return sent_;
    }
    int Count(const std::string& method, const std::string& url_part) {
        int n = 0;
        for (const auto& r : Sent()) {
            n += r.method == method && r.url.find(url_part) != std::string::npos ? 1 : 0;
        }
        return n;
    }

   private:
    sim::SiteSim& site_;
    std::mutex mutex_;
    std::vector<http::ClientRequest> sent_;
};

/// Answers from a script and records what was sent.
class ScriptedHttpClient final : public http::Client {
   public:
    void Push(Result<http::ClientResponse> response) { script_.push_back(std::move(response)); }
    void PushStatus(int status, std::string body) {
        http::ClientResponse r;
        r.status = status;
        r.body = std::move(body);
        script_.push_back(r);
    }
    Result<http::ClientResponse> Send(const http::ClientRequest& request) override {
        sent.push_back(request);
        if (script_.empty()) {
            return Error::Internal("script exhausted");
        }
        auto next = script_.front();
        script_.pop_front();
        return next;
    }
    std::vector<http::ClientRequest> sent;

   private:
    std::deque<Result<http::ClientResponse>> script_;
};

inline std::shared_ptr<const sim::SchemaSet> Schemas() {
    static const auto kSchemas = [] {
        auto loaded = sim::LoadEmbeddedSchemas();
        if (!loaded) {
            throw std::runtime_error(loaded.error().message);
        }
        return *loaded;
    }();
    return kSchemas;
}

inline std::unique_ptr<sim::SiteSim> StillSite(sim::SimConfig config = sim::SimConfig::Default()) {
    config.speed = 0;
    auto site = sim::SiteSim::Create(std::move(config), Schemas());
    if (!site) {
        throw std::runtime_error(site.error().message);
    }
    return std::move(*site);
}

inline std::vector<std::string> Chain(const std::string& leaf) {
    return {
        leaf,
        "tosca.nodes.indigo.Container.Application.Docker",
        "tosca.nodes.Container.Application.Docker",
        "tosca.nodes.Container.Application",
        "tosca.nodes.Root"};
}

inline tosca::NodeSpec AppNode(
    const std::string& name, const std::string& type, const std::string& image = "nginx:1.25"
) {
    tosca::NodeSpec node;
    node.name = name;
    node.type = type;
    node.type_chain = Chain(type);
    node.image = image;
    node.host_node = name + "_runtime";
    node.resources.cpus = 0.5;
    node.resources.mem_mb = 512;
    return node;
}

inline tosca::DeploymentSpec SpecOf(tosca::DeploymentKind kind, std::vector<tosca::NodeSpec> nodes) {
    tosca::DeploymentSpec spec;
    spec.kind = kind;
    spec.nodes = std::move(nodes);
    return spec;
}

inline SiteTarget Target(TargetKind kind, std::string endpoint, Json options = Json::object()) {
    SiteTarget target;
    target.site_id = "SIM-SITE";
    target.service_id = "SIM-SITE_svc";
    target.kind = kind;
    target.endpoint = std::move(endpoint);
    target.options = std::move(options);
    target.credentials.bearer_token = "token-1";
    return target;
}

inline DeployRequest Request(const std::string& id, const tosca::DeploymentSpec& spec, SiteTarget target) {
    DeployRequest request;
    request.deployment_id = id;
    request.spec = &spec;
    request.target = std::move(target);
    return request;
}

template <typename T>
T Ok(ConnectorResult<T> result) {
    if (const auto* failure = std::get_if<Failure>(&result)) {
        throw std::runtime_error("unexpected failure: " + failure->message);
    }
    return std::get<T>(std::move(result));
}

template <typename T>
Failure Fails(ConnectorResult<T> result) {
    if (!std::holds_alternative<Failure>(result)) {
        throw std::runtime_error("expected a failure");
    }
    return std::get<Failure>(std::move(result));
}

/// Polls, advancing simulated time by `step` seconds between polls, until the phase is no longer
/// kInProgress or `max_polls` is reached.
template <typename C>
Observation PollUntilSettled(
    C& connector,
    const Handle& handle,
    const tosca::DeploymentSpec& spec,
    sim::SiteSim& site,
    double step = 1.0,
    int max_polls = 30
) {
    Observation obs;
    for (int i = 0; i < max_polls; ++i) {
        obs = Ok(connector.Poll(handle, spec));
        if (obs.phase != Phase::kInProgress) {
            return obs;
        }
        site.AdvanceClock(step);
    }
    return obs;
}

}  // namespace orch::connectors::test
