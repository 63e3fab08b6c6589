#include "connectors/chronos_connector.hpp"

#include "common/log.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace orch::connectors {
namespace {

std::string ApiBase(const std::string& endpoint) {
    std::string base = endpoint;
    while (!base.empty() && base.back() == '/') {
        base.pop_back();
    }
    if (base.size() < 3 || base.substr(base.size() - 3) != "/v1") {
        base += "/v1";
    }
    return base;
}

// The job names per node and the submission order (Delete removes children first).
Json JobsState(const std::vector<ChronosJobPlan>& plans) {
    Json jobs = Json::object();
    Json order = Json::array();
    for (const auto& plan : plans) {
        jobs[plan.node].push_back(plan.body["name"]);
        order.push_back(plan.body["name"]);
    }
    return {{"jobs", jobs}, {"order", order}};
}

InstanceStatus JobState(const Json& job) {
    if (job.value("disabled", false) == true) {
        return InstanceStatus::kStopped;  // a stopped job: Chronos keeps it but never runs it
    }
    if (job.value("successCount", 0) > 0) {
        return InstanceStatus::kStarted;
    }
    return job.value("errorCount", 0) > 0 ? InstanceStatus::kError : InstanceStatus::kCreating;
}

}  // namespace

ChronosConnector::ChronosConnector(SiteClientFactory& clients, CallOptions options)
    : clients_(clients), options_(options) {}

ConnectorResult<RestClient> ChronosConnector::ClientFor(const SiteTarget& target) {
    ORCH_CONNECTOR_TRY(std::shared_ptr<http::Client> client, clients_.ClientFor(target));
    return RestClient(
        std::move(client),
        ApiBase(target.endpoint),
        AuthHeaders(target.credentials),
        options_,
        "Chronos " + target.site_id
    );
}

ConnectorResult<std::vector<std::string>> ChronosConnector::ExistingJobs(
    RestClient& rest, const std::string& deployment_id
) {
    ORCH_CONNECTOR_TRY(
        RestResponse r, rest.Call("GET", "/scheduler/jobs/search?name=" + http::UrlEncode(deployment_id))
    );
    if (!r.Ok()) {
        return rest.StatusFailure(r, "searching Chronos jobs");
    }
    ORCH_CONNECTOR_TRY(Json jobs, rest.ParseBody(r, "searching Chronos jobs"));
    std::vector<std::string> names;
    // The search matches substrings; only names that start with the deployment id are ours.
    for (const auto& job : jobs.is_array() ? jobs : Json::array()) {
        const std::string name = job.value("name", "");
        if (name.rfind(deployment_id + "-", 0) == 0) {
            names.push_back(name);
        }
    }
    return names;
}

ConnectorResult<bool> ChronosConnector::Submit(
    RestClient& rest, const std::vector<ChronosJobPlan>& plans, bool replace_existing, const std::string& deployment_id
) {
    ORCH_CONNECTOR_TRY(std::vector<std::string> existing, ExistingJobs(rest, deployment_id));
    const std::set<std::string> present(existing.begin(), existing.end());
    for (const auto& plan : plans) {
        const std::string name = plan.body["name"].get<std::string>();
        if (!replace_existing && present.count(name) != 0) {
            continue;  // submitted by an earlier attempt of this same create
        }
        const std::string path = plan.dependent ? "/scheduler/dependency" : "/scheduler/iso8601";
        ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("POST", path, &plan.body));
        if (!r.Ok()) {
            return rest.StatusFailure(r, "submitting Chronos job " + name);
        }
    }
    return true;
}

ConnectorResult<Handle> ChronosConnector::Create(const DeployRequest& request) {
    return GuardJson("Chronos site " + request.target.site_id, [&]() -> ConnectorResult<Handle> {
        ORCH_CONNECTOR_TRY(std::vector<ChronosJobPlan> plans, BuildChronosJobs(request));
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(request.target));
        ORCH_CONNECTOR_TRY(bool submitted, Submit(rest, plans, false, request.deployment_id));
        (void)submitted;
        Handle handle;
        handle.deployment_id = request.deployment_id;
        handle.physical_id = request.deployment_id;
        handle.target = request.target;
        handle.state = JobsState(plans);
        ORCH_LOG_INFO(
            "Chronos jobs submitted", {{"jobs", static_cast<int>(plans.size())}, {"site", request.target.site_id}}
        );
        return handle;
    });
}

ConnectorResult<Observation> ChronosConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    return GuardJson("Chronos site " + handle.target.site_id, [&]() -> ConnectorResult<Observation> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        DeployRequest request;
        request.deployment_id = handle.deployment_id;
        request.spec = &spec;
        request.target = handle.target;
        request.target.options["gpu_support"] = true;  // only the names matter here
        ORCH_CONNECTOR_TRY(std::vector<ChronosJobPlan> plans, BuildChronosJobs(request));
        ORCH_CONNECTOR_TRY(
            RestResponse r, rest.Call("GET", "/scheduler/jobs/search?name=" + http::UrlEncode(handle.deployment_id))
        );
        if (!r.Ok()) {
            return rest.StatusFailure(r, "searching Chronos jobs");
        }
        ORCH_CONNECTOR_TRY(Json found, rest.ParseBody(r, "searching Chronos jobs"));
        std::map<std::string, Json> jobs;
        for (const auto& job : found.is_array() ? found : Json::array()) {
            jobs[job.value("name", "")] = job;
        }
        Observation obs;
        std::vector<std::string> missing;
        std::vector<std::string> waiting;
        for (const auto& plan : plans) {
            const std::string name = plan.body["name"].get<std::string>();
            const auto it = jobs.find(name);
            if (it == jobs.end()) {
                missing.push_back(name);
                continue;
            }
            const Json& job = it->second;
            InstanceState instance{plan.node, plan.index, name, JobState(job), {}};
            for (const char* field : {"successCount", "errorCount", "lastSuccess", "lastError", "schedule"}) {
                if (job.contains(field)) {
                    instance.attributes[field] = job[field];
                }
            }
            obs.instances.push_back(instance);
            if (job.value("successCount", 0) > 0 || instance.state == InstanceStatus::kStopped) {
                continue;  // done, or stopped by its owner: nothing to wait for
            }
            if (job.value("errorCount", 0) > 0) {
                obs.phase = Phase::kFailed;
                obs.failure = FailureKind::kTryAnotherSite;
                obs.reason =
                    "Chronos job " + name + " failed to execute (last error " + job.value("lastError", "") + ")";
                return obs;
            }
            waiting.push_back(name);
        }
        if (missing.size() == plans.size()) {
            obs.phase = Phase::kGone;
            return obs;
        }
        if (!missing.empty()) {
            obs.phase = Phase::kFailed;
            obs.failure = FailureKind::kTryAnotherSite;
            obs.reason = "Chronos job " + missing.front() + " is missing on site " + handle.target.site_id;
            return obs;
        }
        obs.phase = waiting.empty() ? Phase::kReady : Phase::kInProgress;
        for (const auto& name : waiting) {
            obs.reason += (obs.reason.empty() ? "waiting for the first successful run of " : ", ") + name;
        }
        return obs;
    });
}

ConnectorResult<Handle> ChronosConnector::Update(const Handle& handle, const DeployRequest& request) {
    return GuardJson("Chronos site " + handle.target.site_id, [&]() -> ConnectorResult<Handle> {
        ORCH_CONNECTOR_TRY(std::vector<ChronosJobPlan> plans, BuildChronosJobs(request));
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        // Chronos replaces a job posted again under the same name.
        ORCH_CONNECTOR_TRY(bool submitted, Submit(rest, plans, true, handle.deployment_id));
        (void)submitted;
        ORCH_CONNECTOR_TRY(std::vector<std::string> existing, ExistingJobs(rest, handle.deployment_id));
        std::set<std::string> wanted;
        for (const auto& plan : plans) {
            wanted.insert(plan.body["name"].get<std::string>());
        }
        for (const auto& name : existing) {
            if (wanted.count(name) == 0) {
                ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("DELETE", "/scheduler/job/" + http::UrlEncode(name)));
                if (!r.Ok() && r.status != 400 && r.status != 404) {
                    return rest.StatusFailure(r, "deleting Chronos job " + name);
                }
            }
        }
        Handle updated = handle;
        updated.state = JobsState(plans);
        return updated;
    });
}

ConnectorResult<Deletion> ChronosConnector::Delete(const Handle& handle, bool force) {
    return GuardJson("Chronos site " + handle.target.site_id, [&]() -> ConnectorResult<Deletion> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        ORCH_CONNECTOR_TRY(std::vector<std::string> names, ExistingJobs(rest, handle.deployment_id));
        if (names.empty()) {
            return Deletion::kComplete;
        }
        // Children were submitted after their parents; removing them first (reverse submission
        // order, kept in the handle) never leaves a child pointing at a deleted parent.
        std::vector<std::string> ordered;
        const Json order = handle.state.value("order", Json::array());
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            if (it->is_string() && std::find(names.begin(), names.end(), it->get<std::string>()) != names.end()) {
                ordered.push_back(it->get<std::string>());
            }
        }
        for (const auto& name : names) {
            if (std::find(ordered.begin(), ordered.end(), name) == ordered.end()) {
                ordered.push_back(name);
            }
        }
        for (const auto& name : ordered) {
            const std::string encoded = http::UrlEncode(name);
            ORCH_CONNECTOR_TRY(RestResponse kill, rest.Call("DELETE", "/scheduler/task/kill/" + encoded));
            (void)kill;  // nothing running is fine
            ORCH_CONNECTOR_TRY(RestResponse r, rest.Call("DELETE", "/scheduler/job/" + encoded));
            if (r.Ok() || r.status == 400 || r.status == 404) {
                continue;
            }
            Failure failure = rest.StatusFailure(r, "deleting Chronos job " + name);
            if (!force || failure.kind == FailureKind::kRetryHere) {
                return failure;
            }
            ORCH_LOG_WARN("Chronos job deletion failed; forced", {{"job", name}, {"error", failure.message}});
        }
        return Deletion::kInProgress;
    });
}

// Stop disables the job (Chronos keeps it, with its counters, and never runs it); start enables
// it again. The job is posted back as the site has it, with only `disabled` changed.
ConnectorResult<bool> ChronosConnector::Act(
    const Handle& handle, const std::string& physical_id, const std::string& action
) {
    if (action != "start" && action != "stop") {
        return Failure{FailureKind::kUserError, "Chronos jobs do not support the action '" + action + "'"};
    }
    const bool disable = action == "stop";
    return GuardJson("Chronos site " + handle.target.site_id, [&]() -> ConnectorResult<bool> {
        ORCH_CONNECTOR_TRY(RestClient rest, ClientFor(handle.target));
        ORCH_CONNECTOR_TRY(
            RestResponse r, rest.Call("GET", "/scheduler/jobs/search?name=" + http::UrlEncode(physical_id))
        );
        if (!r.Ok()) {
            return rest.StatusFailure(r, "searching Chronos job " + physical_id);
        }
        ORCH_CONNECTOR_TRY(Json found, rest.ParseBody(r, "searching Chronos job " + physical_id));
        // The search matches substrings: only the deployment's own job by its exact name.
        const auto job = std::find_if(found.begin(), found.end(), [&](const Json& j) {
            return j.is_object() && j.value("name", "") == physical_id && physical_id.starts_with(handle.deployment_id);
        });
        if (!found.is_array() || job == found.end()) {
            return Failure{FailureKind::kUserError, "the resource is not one of the deployment's Chronos jobs"};
        }
        if (job->value("disabled", false) == disable) {
            return true;  // already stopped / enabled: the action's poll sees it at once
        }
        Json body = *job;
        body["disabled"] = disable;
        const std::string path =
            body.contains("parents") && !body["parents"].empty() ? "/scheduler/dependency" : "/scheduler/iso8601";
        ORCH_CONNECTOR_TRY(RestResponse put, rest.Call("POST", path, &body));
        if (!put.Ok()) {
            return rest.StatusFailure(
                put, (disable ? "disabling Chronos job " : "enabling Chronos job ") + physical_id
            );
        }
        ORCH_LOG_INFO(
            std::string("Chronos job ") + (disable ? "disabled" : "enabled"),
            {{"job", physical_id}, {"site", handle.target.site_id}}
        );
        return true;
    });
}

}  // namespace orch::connectors
