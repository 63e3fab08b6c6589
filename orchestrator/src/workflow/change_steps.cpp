// update / update_poll, action / action_poll, and callback.
#include "create_steps.hpp"

#include <map>
#include <variant>

namespace orch::workflow::steps {
namespace {

Transition UpdateFailed(const std::string& reason) {
    Transition t;
    t.status = domain::Status::kUpdateFailed;
    t.status_reason = reason;
    t.task = domain::Task::kNone;
    t.callback = true;
    return t;
}

// A failed action fails the deployment, as the original does (CREATE_COMPLETE → CREATE_FAILED).
Transition ActionFailed(const WorkflowState& st, const std::string& resource_id, const std::string& reason) {
    Transition t;
    t.status = st.deployment.status == domain::Status::kCreateComplete ? domain::Status::kCreateFailed
                                                                       : domain::Status::kUpdateFailed;
    t.status_reason = reason;
    t.task = domain::Task::kNone;
    t.resource_changes.push_back(StateOf(resource_id, domain::NodeState::kError));
    return t;
}

struct Current {
    connectors::Connector* connector = nullptr;
    connectors::Handle handle;
    tosca::DeploymentSpec spec;
    std::map<std::string, connectors::NodePlacement> placements;  ///< by node, as chosen at create
};

// The flavors and images placement chose for the site the deployment runs on: an update that
// adds VM instances creates them with the same choice (the current attempt keeps its candidate).
std::map<std::string, connectors::NodePlacement> CurrentPlacements(const WorkflowState& st) {
    for (const auto& a : st.attempts) {
        if (a.seq != st.candidate_index) {
            continue;
        }
        if (auto candidate = CandidateFromJson(a.target)) {
            return candidate->placements;
        }
    }
    return {};
}

Result<Current> CurrentTarget(StepServices& s, const WorkflowState& st) {
    if (!st.handle.is_object()) {
        return Error::Internal("the deployment has no provider-side handle");
    }
    Current c;
    ORCH_ASSIGN_OR_RETURN(c.handle, HandleFromJson(st.handle));
    c.connector = s.connectors.Find(c.handle.target.kind);
    if (c.connector == nullptr) {
        return Error::Internal("no connector for the deployment's site");
    }
    ORCH_ASSIGN_OR_RETURN(c.handle, WithCredentials(s, std::move(c.handle), st.deployment.owner));
    ORCH_ASSIGN_OR_RETURN(
        c.spec, s.templates.Build(st.deployment.template_text, st.deployment.parameters, st.deployment.parameters)
    );
    c.placements = CurrentPlacements(st);
    return c;
}

Result<std::optional<WorkflowState>> LoadIn(StepServices& s, const Job& job, domain::Status expected) {
    ORCH_ASSIGN_OR_RETURN(auto st, s.store.Load(job.deployment_id));
    if (st && st->deployment.status != expected) {
        return std::optional<WorkflowState>();
    }
    return st;
}

// A deployment being updated, with its current target.
struct UpdateStep {
    WorkflowState st;
    Current current;
};

// Loads the deployment of an update step with its target; otherwise the result to return: a
// retry when the store fails, nothing when the deployment moved on, UPDATE_FAILED without a target.
std::variant<UpdateStep, StepResult> BeginUpdate(StepServices& s, const Job& job) {
    auto loaded = LoadIn(s, job, domain::Status::kUpdateInProgress);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded) {
        return StepResult::Commit({});
    }
    auto current = CurrentTarget(s, **loaded);
    if (!current) {
        return StepResult::Commit(UpdateFailed(current.error().message));
    }
    return UpdateStep{std::move(**loaded), std::move(*current)};
}

// A removal_list names the deployment's resources (their uuids, as the API checked); the site
// knows its instances by their physical ids (server, IM VM), so the connector gets those.
void RemovalListsToPhysicalIds(tosca::DeploymentSpec& spec, const std::vector<domain::Resource>& resources) {
    std::map<std::string, std::string> physical;
    for (const auto& r : resources) {
        if (!r.physical_id.empty()) {
            physical[r.id] = r.physical_id;
        }
    }
    for (auto& node : spec.nodes) {
        for (auto& id : node.removal_list) {
            if (const auto it = physical.find(id); it != physical.end()) {
                id = it->second;
            }
        }
    }
}

}  // namespace

StepResult Update(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto begun = BeginUpdate(s, job);
    if (auto* done = std::get_if<StepResult>(&begun)) {
        return std::move(*done);
    }
    const WorkflowState& st = std::get<UpdateStep>(begun).st;
    Current* const current = &std::get<UpdateStep>(begun).current;
    RemovalListsToPhysicalIds(current->spec, st.resources);
    connectors::DeployRequest request;
    request.deployment_id = st.deployment.id;
    request.spec = &current->spec;
    request.target = current->handle.target;
    request.placements = current->placements;
    request.template_text = st.deployment.template_text;
    const auto updated = current->connector->Update(current->handle, request);
    if (auto failed = StepForFailure(s, job, updated, [&](const connectors::Failure& failure) {
            return UpdateFailed(failure.message);
        })) {
        return std::move(*failed);
    }
    Transition t;
    t.task = domain::Task::kDeployer;
    t.handle = HandleToJson(*Value(updated));
    t.next = NextJob{JobKind::kUpdatePoll, Json{{"polls", 0}}, s.options.first_poll, true};
    t.callback = true;
    return StepResult::Commit(std::move(t));
}

StepResult UpdatePoll(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto begun = BeginUpdate(s, job);
    if (auto* done = std::get_if<StepResult>(&begun)) {
        return std::move(*done);
    }
    Current* const current = &std::get<UpdateStep>(begun).current;
    const int polls = job.payload.value("polls", 0);
    const auto observed = current->connector->Poll(current->handle, current->spec);
    if (auto failed = StepForFailure(s, job, observed, [&](const connectors::Failure& failure) {
            return UpdateFailed(failure.message);
        })) {
        return std::move(*failed);
    }
    const auto& obs = *Value(observed);
    if (obs.phase == connectors::Phase::kReady) {
        Transition t;
        t.status = domain::Status::kUpdateComplete;
        t.status_reason = "";
        t.task = domain::Task::kNone;
        t.outputs = s.resolve_outputs ? s.resolve_outputs(current->spec, obs.attributes) : Json::object();
        if (obs.outputs.is_object()) {  // the site evaluated them itself (IM), as after a create
            if (!t.outputs || !t.outputs->is_object()) {
                t.outputs = Json::object();
            }
            t.outputs->update(obs.outputs);
        }
        t.drop_deleting_resources = true;
        t.resources_state = domain::NodeState::kStarted;
        t.resource_changes = InstanceChanges(obs.instances, domain::NodeState::kStarted);
        t.callback = true;
        return StepResult::Commit(std::move(t));
    }
    if (obs.phase != connectors::Phase::kInProgress) {
        return StepResult::Commit(UpdateFailed(obs.reason.empty() ? "the update failed on the site" : obs.reason));
    }
    Transition t;
    t.next = NextJob{JobKind::kUpdatePoll, Json{{"polls", polls + 1}}, PollDelay(s.options, polls + 1), true};
    return StepResult::Commit(std::move(t));
}

StepResult Action(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto loaded = s.store.Load(job.deployment_id);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const std::string rid = job.payload.value("resource", "");
    const std::string action = job.payload.value("action", "");
    std::string physical_id;
    for (const auto& r : st.resources) {
        if (r.id == rid) {
            physical_id = r.physical_id;
        }
    }
    auto current = CurrentTarget(s, st);
    if (!current) {
        return StepResult::Commit(ActionFailed(st, rid, current.error().message));
    }
    const auto acted = current->connector->Act(current->handle, physical_id, action);
    if (auto failed = StepForFailure(s, job, acted, [&](const connectors::Failure& failure) {
            return ActionFailed(st, rid, failure.message);
        })) {
        return std::move(*failed);
    }
    Json payload = job.payload;
    payload["physical_id"] = physical_id;
    payload["started_ms"] =
        std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now().time_since_epoch()).count();
    payload["polls"] = 0;
    return StepResult::Commit(Then(NextJob{JobKind::kActionPoll, payload, s.options.first_poll, true}));
}

StepResult ActionPoll(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto loaded = s.store.Load(job.deployment_id);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const std::string rid = job.payload.value("resource", "");
    const bool start = job.payload.value("action", "") == "start";
    const auto want = start ? connectors::InstanceStatus::kStarted : connectors::InstanceStatus::kStopped;
    const std::string physical_id = job.payload.value("physical_id", "");
    const int polls = job.payload.value("polls", 0);
    auto current = CurrentTarget(s, st);
    if (!current) {
        return StepResult::Commit(ActionFailed(st, rid, current.error().message));
    }
    const auto observed = current->connector->Poll(current->handle, current->spec);
    if (const auto* obs = Value(observed)) {
        for (const auto& inst : obs->instances) {
            if (inst.physical_id == physical_id && inst.state == want) {
                Transition t;
                t.resource_changes.push_back(
                    StateOf(rid, start ? domain::NodeState::kStarted : domain::NodeState::kStopped)
                );
                return StepResult::Commit(std::move(t));
            }
        }
    }
    const auto started = std::chrono::milliseconds(job.payload.value("started_ms", std::int64_t{0}));
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now().time_since_epoch());
    if (now - started > s.options.action_timeout) {
        return StepResult::Commit(ActionFailed(st, rid, std::string(kTimeoutReason)));
    }
    Json payload = job.payload;
    payload["polls"] = polls + 1;
    return StepResult::Commit(Then(NextJob{JobKind::kActionPoll, payload, PollDelay(s.options, polls + 1), true}));
}

// A callback job queued by a version before the outbox (migration 0008): it becomes a delivery
// of the outbox, which sends it (CallbackDeliverer).
StepResult Callback(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)s;
    (void)job;
    (void)cancel;
    Transition t;
    t.callback = true;
    return StepResult::Commit(std::move(t));
}

}  // namespace orch::workflow::steps
