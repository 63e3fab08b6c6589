#include "test_support/fakes.hpp"

#include <orchestrator/placement/usage.hpp>

#include <algorithm>
#include <thread>
#include <utility>

namespace orch::test {
namespace {

std::string Key(const std::string& site, const std::string& deployment) {
    return site + "/" + deployment;
}

}  // namespace

tosca::DeploymentSpec SimpleSpec() {
    tosca::DeploymentSpec spec;
    spec.kind = tosca::DeploymentKind::kMarathon;
    tosca::NodeSpec app;
    app.name = "app";
    app.type = "tosca.nodes.indigo.Container.Application.Docker.Marathon";
    app.type_chain = {app.type, "tosca.nodes.indigo.Container.Application.Docker", "tosca.nodes.Root"};
    app.resources.cpus = 1.0;
    app.resources.mem_mb = 512;
    app.resources.gpu.count = 1;
    spec.nodes.push_back(app);
    tosca::OutputSpec out;
    out.name = "endpoint";
    out.value = Json{{"get_attribute", {"app", "endpoint"}}};
    spec.outputs.push_back(out);
    return spec;
}

Result<tosca::DeploymentSpec> FakeTemplateService::Build(const std::string& text, const Json& parameters, const Json&) {
    if (text.find("INVALID") != std::string::npos) {
        return Error::InvalidArgument("Error parsing TOSCA template template:\n1:1: topology_template: fake error");
    }
    tosca::DeploymentSpec spec = spec_;
    if (parameters.is_object() && parameters.contains("count") && !spec.nodes.empty()) {
        spec.nodes[0].count = parameters["count"].get<int>();
    }
    if (parameters.is_object() && parameters.contains("gpu_model") && !spec.nodes.empty()) {
        spec.nodes[0].resources.gpu.model = parameters["gpu_model"].get<std::string>();
    }
    if (parameters.is_object() && parameters.contains("removal_list") && !spec.nodes.empty()) {
        spec.nodes[0].removal_list = parameters["removal_list"].get<std::vector<std::string>>();
    }
    spec.inputs = parameters;
    return spec;
}

Status FakeTemplateService::Check(const std::string& text) {
    auto built = Build(text, Json::object(), workflow::NoAcceptedParameters());
    return built ? Ok() : Status(built.error());
}

void FakePlacer::SetQuota(const placement::GroupQuota& quota) {
    const std::lock_guard lock(mutex_);
    quota_ = quota;
}

void FakePlacer::SetFull(bool full) {
    const std::lock_guard lock(mutex_);
    full_ = full;
}

void FakePlacer::SetSlaQuota(const std::string& site, const placement::GroupQuota& quota) {
    const std::lock_guard lock(mutex_);
    sla_quotas_[site] = quota;
}

Result<placement::PlacementDecision> FakePlacer::Place(const placement::PlacementRequest& request) {
    const std::lock_guard lock(mutex_);
    placement::PlacementDecision decision;
    decision.mode = "fake";
    decision.quota_group = request.requester.user_group;
    decision.configured_quota = quota_;
    decision.waitable = full_;
    int rank = 1;
    const int gpus = request.spec != nullptr ? placement::RequestedResources(*request.spec).gpus : 0;
    for (const auto& site : full_ ? std::vector<std::string>{} : sites_) {
        if (const auto known = gpus_.find(site); known != gpus_.end()) {
            decision.gpu_sites.push_back({site + "-marathon", known->second.first, known->second.second});
            if (known->second.second < gpus) {
                decision.waitable = true;  // not free now
                continue;
            }
        }
        placement::Candidate c;
        c.target.site_id = site;
        c.target.service_id = site + "-marathon";
        c.target.kind = connectors::TargetKind::kMarathon;
        c.target.endpoint = "http://" + site + ".invalid/";
        c.provider_name = site;
        c.placements["app"] = {"flavor-" + site, "small", "image-" + site, "ubuntu"};
        c.endpoint = {{"cpEndpoint", c.target.endpoint}, {"deploymentType", "MARATHON"}};
        if (const auto sla = sla_quotas_.find(site); sla != sla_quotas_.end()) {
            c.sla_quota = sla->second;
        }
        decision.ranked.push_back(c);
        placement::SiteVerdict v;
        v.provider_id = site;
        v.provider_name = site;
        v.service_id = c.target.service_id;
        v.accepted = true;
        v.rank = rank++;
        decision.verdicts.push_back(v);
    }
    decision.waitable = decision.waitable && decision.ranked.empty();
    return decision;
}

void FakePlacer::SetGpus(const std::string& site, int total, int free) {
    const std::lock_guard lock(mutex_);
    gpus_[site] = {total, free};
}

void FakeConnector::SetBehaviour(const std::string& site, FakeSiteBehaviour behaviour) {
    const std::lock_guard lock(mutex_);
    behaviour_[site] = std::move(behaviour);
}

void FakeConnector::Forget(const std::string& site) {
    const std::lock_guard lock(mutex_);
    std::erase_if(live_, [&](const std::string& key) { return key.rfind(site + "/", 0) == 0; });
}

void FakeConnector::MakeLate(const std::string& site, const std::string& deployment_id) {
    const std::lock_guard lock(mutex_);
    live_.insert(Key(site, deployment_id));
}

connectors::ConnectorResult<connectors::Handle> FakeConnector::Create(const connectors::DeployRequest& request) {
    FakeSiteBehaviour b;
    const std::string key = Key(request.target.site_id, request.deployment_id);
    {
        const std::lock_guard lock(mutex_);
        b = behaviour_[request.target.site_id];
        ++create_calls_[key];
    }
    std::this_thread::sleep_for(b.create_delay);
    if (b.create_fails) {
        return connectors::Failure{*b.create_fails, "fake create failure on " + request.target.site_id};
    }
    {
        const std::lock_guard lock(mutex_);
        live_.insert(key);  // idempotent by deployment id, like the real connectors
    }
    connectors::Handle h;
    h.deployment_id = request.deployment_id;
    h.physical_id = "/orch-" + request.deployment_id;
    h.target = request.target;
    return h;
}

connectors::ConnectorResult<connectors::Observation> FakeConnector::Poll(
    const connectors::Handle& handle, const tosca::DeploymentSpec& spec
) {
    (void)spec;
    const std::string key = Key(handle.target.site_id, handle.deployment_id);
    const std::lock_guard lock(mutex_);
    if (behaviour_[handle.target.site_id].unreachable) {
        return connectors::Failure{
            connectors::FailureKind::kRetryHere, "connection refused by " + handle.target.site_id};
    }
    connectors::Observation obs;
    if (live_.count(key) == 0 && listed_after_delete_.count(key) == 0) {
        obs.phase = connectors::Phase::kGone;
        return obs;
    }
    const auto& b = behaviour_[handle.target.site_id];
    if (b.poll_fails) {
        obs.phase = connectors::Phase::kFailed;
        obs.failure = *b.poll_fails;
        obs.reason = "fake failure reported by " + handle.target.site_id;
        return obs;
    }
    const int poll = ++polls_[key];
    if (!b.site_logs.empty()) {
        obs.log = b.site_logs[std::min(static_cast<std::size_t>(poll), b.site_logs.size()) - 1];
    }
    if (poll < b.polls_until_ready) {
        obs.phase = connectors::Phase::kInProgress;
        obs.reason = b.waiting_message;
        if (b.in_progress_status) {
            connectors::InstanceState inst;
            inst.node = "app";
            inst.physical_id = "task-" + handle.deployment_id.substr(0, 8);
            inst.state = *b.in_progress_status;
            obs.instances.push_back(inst);
        }
        obs.cannot_start = b.cannot_start.has_value();
        obs.site_message = b.cannot_start;
        return obs;
    }
    obs.phase = connectors::Phase::kReady;
    obs.attributes["app"] = Json{{"endpoint", "http://" + handle.target.site_id + ".example/app"}};
    connectors::InstanceState inst;
    inst.node = "app";
    inst.physical_id = "task-" + handle.deployment_id.substr(0, 8);
    inst.state = connectors::InstanceStatus::kStarted;
    obs.instances.push_back(inst);
    return obs;
}

connectors::ConnectorResult<connectors::Handle> FakeConnector::Update(
    const connectors::Handle& handle, const connectors::DeployRequest& request
) {
    const std::lock_guard lock(mutex_);
    update_placements_[request.deployment_id] = request.placements;
    if (request.spec != nullptr && !request.spec->nodes.empty()) {
        update_removals_[request.deployment_id] = request.spec->nodes[0].removal_list;
    }
    return handle;
}

connectors::ConnectorResult<connectors::Deletion> FakeConnector::Delete(const connectors::Handle& handle, bool force) {
    (void)force;
    const std::lock_guard lock(mutex_);
    const std::string key = Key(handle.target.site_id, handle.deployment_id);
    auto& b = behaviour_[handle.target.site_id];
    if (b.unreachable) {
        return connectors::Failure{
            connectors::FailureKind::kRetryHere, "connection refused by " + handle.target.site_id};
    }
    if (b.deletes_without_effect > 0) {
        --b.deletes_without_effect;
        return connectors::Deletion::kInProgress;
    }
    const bool existed = live_.erase(key) > 0;
    if (b.ended_work_stays_listed) {
        if (existed) {
            listed_after_delete_.insert(key);
        }
        return connectors::Deletion::kComplete;
    }
    // Like the asynchronous sites: what existed is gone only when a later Poll says so.
    return existed ? connectors::Deletion::kInProgress : connectors::Deletion::kComplete;
}

connectors::ConnectorResult<bool>
FakeConnector::Act(const connectors::Handle&, const std::string&, const std::string&) {
    return connectors::Failure{connectors::FailureKind::kUserError, "actions are not supported by the fake site"};
}

std::vector<std::string> FakeConnector::UpdateRemovals(const std::string& deployment_id) const {
    const std::lock_guard lock(mutex_);
    const auto it = update_removals_.find(deployment_id);
    return it == update_removals_.end() ? std::vector<std::string>{} : it->second;
}

std::map<std::string, connectors::NodePlacement> FakeConnector::UpdatePlacements(const std::string& deployment_id
) const {
    const std::lock_guard lock(mutex_);
    const auto it = update_placements_.find(deployment_id);
    return it == update_placements_.end() ? std::map<std::string, connectors::NodePlacement>{} : it->second;
}

std::set<std::string> FakeConnector::Live() const {
    const std::lock_guard lock(mutex_);
    return live_;
}

connectors::ConnectorResult<std::string> FakeConnector::SiteVersion(const connectors::SiteTarget& target) {
    const std::lock_guard lock(mutex_);
    ++version_calls_[target.site_id];
    return "fake-marathon 1.0 (" + target.site_id + ")";
}

int FakeConnector::VersionCalls(const std::string& site) const {
    const std::lock_guard lock(mutex_);
    const auto it = version_calls_.find(site);
    return it == version_calls_.end() ? 0 : it->second;
}

int FakeConnector::CreateCalls(const std::string& site, const std::string& deployment_id) const {
    const std::lock_guard lock(mutex_);
    const auto it = create_calls_.find(Key(site, deployment_id));
    return it == create_calls_.end() ? 0 : it->second;
}

int FakeConnector::TotalCreates() const {
    const std::lock_guard lock(mutex_);
    int n = 0;
    for (const auto& [k, v] : create_calls_) {
        n += v;
    }
    return n;
}

}  // namespace orch::test
