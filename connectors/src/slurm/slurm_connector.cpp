#include "connectors/slurm_connector.hpp"

#include "common/log.hpp"
#include "common/scale_plan.hpp"
#include "connectors/rest_client.hpp"
#include "connectors/slurm_job.hpp"
#include "slurm/slurm_rest.hpp"
#include "slurm/slurm_states.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace orch::connectors {
namespace {

using slurm::SlurmRest;

/// One job the connector submitted, as kept in Handle::state["jobs"].
struct JobRef {
    std::string node;
    int index = 0;
    std::string name;
    std::int64_t job_id = 0;
};

Json ToJson(const JobRef& job) {
    return {{"node", job.node}, {"index", job.index}, {"name", job.name}, {"job_id", job.job_id}};
}

ConnectorResult<std::vector<JobRef>> JobsOf(const Handle& handle) {
    const auto jobs = handle.state.find("jobs");
    if (jobs == handle.state.end() || !jobs->is_array()) {
        return Failure{
            FailureKind::kUserError, "handle of deployment " + handle.deployment_id + " lists no Slurm jobs"};
    }
    std::vector<JobRef> out;
    for (const auto& job : *jobs) {
        if (!job.is_object() || !job.value("job_id", Json()).is_number_integer()) {
            return Failure{FailureKind::kUserError, "handle of deployment " + handle.deployment_id + " is malformed"};
        }
        out.push_back(
            {job.value("node", ""), job.value("index", 0), job.value("name", ""), job["job_id"].get<std::int64_t>()}
        );
    }
    return out;
}

/// The batch-job nodes of a request, checked against the bound on jobs per deployment.
ConnectorResult<std::vector<const tosca::NodeSpec*>> JobNodes(const DeployRequest& request, std::size_t max_jobs) {
    if (request.spec == nullptr || request.deployment_id.empty()) {
        return Failure{FailureKind::kUserError, "a Slurm deployment needs a deployment id and a template"};
    }
    std::vector<const tosca::NodeSpec*> nodes;
    std::size_t total = 0;
    for (const auto& node : request.spec->nodes) {
        if (IsSlurmJobNode(node)) {
            nodes.push_back(&node);
            total += static_cast<std::size_t>(std::max(node.count, 0));
        }
    }
    if (nodes.empty()) {
        return Failure{
            FailureKind::kUserError, "the template has no batch job (tosca.nodes.indigo.Batch.Job) to run on Slurm"};
    }
    if (total > max_jobs) {
        return Failure{
            FailureKind::kUserError,
            "the template asks for " + std::to_string(total) + " Slurm jobs; at most " + std::to_string(max_jobs) +
                " are allowed per deployment",
        };
    }
    return nodes;
}

/// Jobs already at the controller under our names, so a re-run never submits twice. Jobs this
/// connector cancelled do not count: their instance is submitted again.
ConnectorResult<std::map<std::string, std::int64_t>> ExistingJobs(SlurmRest& rest, const SiteTarget& target) {
    auto listed = rest.ListJobs();
    if (auto* failure = std::get_if<Failure>(&listed)) {
        return *failure;
    }
    std::map<std::string, std::int64_t> out;
    for (const auto& job : std::get<std::vector<Json>>(listed)) {
        const std::string name = job.value("name", "");
        if (name.rfind("orch-", 0) != 0 || job.value("user_name", "") != target.credentials.username ||
            slurm::CancelledByUs(job) || job.value("job_state", "") == "CANCELLED") {
            continue;
        }
        // Job ids only grow: the newest job with a name wins.
        out[name] = std::max(out[name], job.value("job_id", std::int64_t{0}));
    }
    return out;
}

void CancelQuietly(SlurmRest& rest, const std::vector<JobRef>& jobs) {
    for (const auto& job : jobs) {
        (void)slurm::CancelJob(rest, job.job_id);
    }
}

/// Submits instances `indexes` of `node` unless a job of that name exists. `jobs` receives every
/// instance (found or new), `submitted` the new ones.
std::optional<Failure> SubmitInstances(
    SlurmRest& rest,
    const DeployRequest& request,
    const tosca::NodeSpec& node,
    const std::vector<int>& indexes,
    const std::map<std::string, std::int64_t>& existing,
    std::vector<JobRef>& jobs,
    std::vector<JobRef>& submitted
) {
    for (const int index : indexes) {
        const std::string name = SlurmJobName(request.deployment_id, node.name, index);
        if (const auto it = existing.find(name); it != existing.end()) {
            jobs.push_back({node.name, index, name, it->second});
            continue;
        }
        auto body = BuildSlurmSubmission(request, node, index);
        if (auto* failure = std::get_if<Failure>(&body)) {
            return *failure;
        }
        auto id = rest.Submit(std::get<Json>(body));
        if (auto* failure = std::get_if<Failure>(&id)) {
            return *failure;
        }
        submitted.push_back({node.name, index, name, std::get<std::int64_t>(id)});
        jobs.push_back(submitted.back());
    }
    return std::nullopt;
}

/// Submits what `wanted` (node → indexes) lacks. On a failure the jobs submitted by this call are
/// cancelled, unless the failure is transient: then a re-run finds them by name.
ConnectorResult<std::vector<JobRef>> SubmitAll(
    SlurmRest& rest,
    const DeployRequest& request,
    const std::vector<std::pair<const tosca::NodeSpec*, std::vector<int>>>& wanted,
    std::vector<JobRef> jobs
) {
    auto existing = ExistingJobs(rest, request.target);
    if (auto* failure = std::get_if<Failure>(&existing)) {
        return *failure;
    }
    std::vector<JobRef> submitted;
    for (const auto& [node, indexes] : wanted) {
        auto failure = SubmitInstances(
            rest, request, *node, indexes, std::get<std::map<std::string, std::int64_t>>(existing), jobs, submitted
        );
        if (failure) {
            if (failure->kind != FailureKind::kRetryHere) {
                CancelQuietly(rest, submitted);
            }
            return *failure;
        }
    }
    return jobs;
}

Handle MakeHandle(const DeployRequest& request, const std::vector<JobRef>& jobs) {
    Handle handle;
    handle.deployment_id = request.deployment_id;
    handle.physical_id = "orch-" + request.deployment_id;
    handle.target = request.target;
    Json list = Json::array();
    for (const auto& job : jobs) {
        list.push_back(ToJson(job));
    }
    handle.state = {{"jobs", std::move(list)}};
    return handle;
}

}  // namespace

SlurmConnector::SlurmConnector(SiteClientFactory& clients, SlurmOptions options)
    : clients_(clients), options_(options) {}

ConnectorResult<Handle> SlurmConnector::CreateUnguarded(const DeployRequest& request) {
    auto nodes = JobNodes(request, options_.max_jobs_per_deployment);
    if (auto* failure = std::get_if<Failure>(&nodes)) {
        return *failure;
    }
    auto rest = SlurmRest::For(clients_, request.target, options_.call);
    if (auto* failure = std::get_if<Failure>(&rest)) {
        return *failure;
    }
    std::vector<std::pair<const tosca::NodeSpec*, std::vector<int>>> wanted;
    for (const auto* node : std::get<std::vector<const tosca::NodeSpec*>>(nodes)) {
        wanted.emplace_back(node, FirstFreeIndexes({}, static_cast<std::size_t>(std::max(node->count, 0))));
    }
    auto jobs = SubmitAll(std::get<SlurmRest>(rest), request, wanted, {});
    if (auto* failure = std::get_if<Failure>(&jobs)) {
        return *failure;
    }
    const auto& all = std::get<std::vector<JobRef>>(jobs);
    ORCH_LOG_INFO(
        "slurm jobs submitted",
        {{"deployment_id", request.deployment_id},
         {"site", request.target.site_id},
         {"jobs", static_cast<int>(all.size())}}
    );
    return MakeHandle(request, all);
}

ConnectorResult<Observation>
SlurmConnector::PollUnguarded(const Handle& handle, const tosca::DeploymentSpec& /*spec*/) {
    auto jobs = JobsOf(handle);
    if (auto* failure = std::get_if<Failure>(&jobs)) {
        return *failure;
    }
    auto rest = SlurmRest::For(clients_, handle.target, options_.call);
    if (auto* failure = std::get_if<Failure>(&rest)) {
        return *failure;
    }
    slurm::JobSetView view;
    for (const auto& job : std::get<std::vector<JobRef>>(jobs)) {
        auto record = std::get<SlurmRest>(rest).GetJob(job.job_id);
        if (auto* failure = std::get_if<Failure>(&record)) {
            return *failure;
        }
        view.Add(job.node, job.index, job.name, job.job_id, std::get<std::optional<Json>>(record));
    }
    return view.Observe();
}

ConnectorResult<Handle> SlurmConnector::UpdateUnguarded(const Handle& handle, const DeployRequest& request) {
    auto current = JobsOf(handle);
    if (auto* failure = std::get_if<Failure>(&current)) {
        return *failure;
    }
    auto nodes = JobNodes(request, options_.max_jobs_per_deployment);
    if (auto* failure = std::get_if<Failure>(&nodes)) {
        return *failure;
    }
    auto made = SlurmRest::For(clients_, request.target, options_.call);
    if (auto* failure = std::get_if<Failure>(&made)) {
        return *failure;
    }
    auto& rest = std::get<SlurmRest>(made);

    // Keep, per node, the jobs not named for removal, lowest indexes first, up to the new count.
    auto plan = PlanScale(
        std::get<std::vector<JobRef>>(current),
        std::get<std::vector<const tosca::NodeSpec*>>(nodes),
        [](const JobRef& job) { return std::to_string(job.job_id); }
    );
    auto& kept = plan.kept;
    for (const auto& job : plan.surplus) {
        if (auto cancelled = slurm::CancelJob(rest, job.job_id); std::holds_alternative<Failure>(cancelled)) {
            return std::get<Failure>(cancelled);
        }
    }
    std::vector<JobRef> staying;
    std::vector<std::pair<const tosca::NodeSpec*, std::vector<int>>> wanted;
    for (const auto* node : std::get<std::vector<const tosca::NodeSpec*>>(nodes)) {
        std::set<int> used;
        for (const auto& job : kept[node->name]) {
            used.insert(job.index);
            staying.push_back(job);
        }
        const auto missing = static_cast<std::size_t>(std::max(node->count, 0)) - kept[node->name].size();
        wanted.emplace_back(node, FirstFreeIndexes(used, missing));
    }
    auto all = SubmitAll(rest, request, wanted, std::move(staying));
    if (auto* failure = std::get_if<Failure>(&all)) {
        return *failure;
    }
    return MakeHandle(request, std::get<std::vector<JobRef>>(all));
}

ConnectorResult<Deletion> SlurmConnector::DeleteUnguarded(const Handle& handle, bool force) {
    auto jobs = JobsOf(handle);
    if (auto* failure = std::get_if<Failure>(&jobs)) {
        return *failure;
    }
    auto rest = SlurmRest::For(clients_, handle.target, options_.call);
    if (auto* failure = std::get_if<Failure>(&rest)) {
        return *failure;
    }
    bool all_ended = true;
    for (const auto& job : std::get<std::vector<JobRef>>(jobs)) {
        auto outcome = slurm::CancelJob(std::get<SlurmRest>(rest), job.job_id);
        if (auto* failure = std::get_if<Failure>(&outcome)) {
            if (!force) {
                return *failure;
            }
            ORCH_LOG_WARN(
                "slurm job not cancelled (forced delete goes on)",
                {{"deployment_id", handle.deployment_id}, {"job_id", job.job_id}, {"reason", failure->message}}
            );
            continue;
        }
        all_ended = all_ended && std::get<bool>(outcome);
    }
    return all_ended ? Deletion::kComplete : Deletion::kInProgress;
}

ConnectorResult<bool> SlurmConnector::Act(
    const Handle& /*handle*/, const std::string& /*physical_id*/, const std::string& action
) {
    return Failure{FailureKind::kUserError, "Slurm batch jobs cannot be started or stopped (action '" + action + "')"};
}

ConnectorResult<std::string> SlurmConnector::SiteVersion(const SiteTarget& target) {
    return GuardJson(target.site_id, [&]() -> ConnectorResult<std::string> {
        ORCH_CONNECTOR_TRY(slurm::SlurmRest rest, slurm::SlurmRest::For(clients_, target, options_.call));
        ORCH_CONNECTOR_TRY(std::string release, rest.Release());
        return "Slurm " + release;
    });
}

ConnectorResult<Handle> SlurmConnector::Create(const DeployRequest& request) {
    return GuardJson(request.target.site_id, [&] { return CreateUnguarded(request); });
}

ConnectorResult<Observation> SlurmConnector::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    return GuardJson(handle.target.site_id, [&] { return PollUnguarded(handle, spec); });
}

ConnectorResult<Handle> SlurmConnector::Update(const Handle& handle, const DeployRequest& request) {
    return GuardJson(request.target.site_id, [&] { return UpdateUnguarded(handle, request); });
}

ConnectorResult<Deletion> SlurmConnector::Delete(const Handle& handle, bool force) {
    return GuardJson(handle.target.site_id, [&] { return DeleteUnguarded(handle, force); });
}

}  // namespace orch::connectors
