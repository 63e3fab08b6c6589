// update / update_poll, action / action_poll, and callback.
#include "create_steps.hpp"

#include <algorithm>
#include <map>
#include <optional>
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

// The action's transition once the site shows the resource in the wanted state; nullopt before.
// The resource is its instance by physical id (servers keep theirs) or else by node and index (a
// Marathon app started again runs new tasks, a stopped one has none). Every instance of the node
// seen in that state is recorded with it: a Marathon action acts on the whole app.
std::optional<Transition> ActionDone(
    const connectors::Observation& obs,
    const domain::Resource& resource,
    const std::string& physical_id,
    connectors::InstanceStatus want
) {
    const auto is_resource = [&](const connectors::InstanceState& inst) {
        return (!physical_id.empty() && inst.physical_id == physical_id) ||
               (inst.node == resource.node_name && inst.index == resource.instance_index);
    };
    const bool reached = std::any_of(obs.instances.begin(), obs.instances.end(), [&](const auto& inst) {
        return is_resource(inst) && inst.state == want;
    });
    if (!reached) {
        return std::nullopt;
    }
    const auto state =
        want == connectors::InstanceStatus::kStarted ? domain::NodeState::kStarted : domain::NodeState::kStopped;
    Transition t;
    t.resource_changes.push_back(StateOf(resource.id, state));
    for (const auto& inst : obs.instances) {
        if (inst.node != resource.node_name || inst.state != want) {
            continue;
        }
        ResourceChange c;
        c.node = inst.node;
        c.index = inst.index;
        c.state = state;
        if (!inst.physical_id.empty()) {
            c.physical_id = inst.physical_id;
        }
        t.resource_changes.push_back(std::move(c));
    }
    return t;
}

// "rolled back to 2 replicas" (one node) or "rolled back to 2 replicas of a, 1 replica of b".
std::string RollbackNote(const std::map<std::string, int>& counts) {
    std::string note = "rolled back to ";
    bool first = true;
    for (const auto& [node, count] : counts) {
        note += (first ? "" : ", ") + std::to_string(count) + (count == 1 ? " replica" : " replicas") +
                (counts.size() > 1 ? " of " + node : "");
        first = false;
    }
    return note;
}

// An update the site failed: the connector puts back what it changed when it can, and the
// instances the update added (CREATING rows of the nodes put back) are marked DELETED. When it
// cannot (not supported, or nothing recorded) the deployment fails with what the update left, as
// before; a transient failure of the rollback retries the step (which polls again first).
StepResult FailUpdate(StepServices& s, const Job& job, const UpdateStep& step, const std::string& reason) {
    const auto restored = step.current.connector->RollBack(step.current.handle);
    if (const auto* failure = std::get_if<connectors::Failure>(&restored)) {
        if (failure->kind == connectors::FailureKind::kRetryHere && job.attempts <= s.options.max_transient_retries) {
            return StepResult::Retry(Backoff(job.attempts), failure->message);
        }
        ORCH_LOG_INFO("update not rolled back", {{"deployment_id", job.deployment_id}, {"why", failure->message}});
        const bool unsupported = failure->kind == connectors::FailureKind::kUserError;
        return StepResult::Commit(
            UpdateFailed(unsupported ? reason : reason + "; rolling back failed: " + failure->message)
        );
    }
    const auto& done = *Value(restored);
    Transition t = UpdateFailed(reason + "; " + RollbackNote(done.counts));
    t.handle = HandleToJson(done.handle);
    // The node's instances are as before the update: the ones it added are gone, the ones it
    // was to remove (a count read from `replicas` plans surplus rows) still run.
    for (const auto& r : step.st.resources) {
        if (done.counts.count(r.node_name) == 0) {
            continue;
        }
        if (r.state == domain::NodeState::kCreating) {
            t.resource_changes.push_back(StateOf(r.id, domain::NodeState::kDeleted));
        } else if (r.state == domain::NodeState::kDeleting) {
            t.resource_changes.push_back(StateOf(r.id, domain::NodeState::kStarted));
        }
    }
    return StepResult::Commit(std::move(t));
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
    if (const auto& owner = st.deployment.owner) {
        request.owner_issuer = owner->issuer;
        request.owner_name = owner->name;
        request.owner_email = owner->email;
    }
    const auto updated = current->connector->Update(current->handle, request);
    if (auto failed = StepForFailure(s, job, updated, [&](const connectors::Failure& failure) {
            return UpdateFailed(failure.message);
        })) {
        return std::move(*failed);
    }
    if (s.site_watcher != nullptr) {
        s.site_watcher->Watch(*Value(updated));
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
    const UpdateStep& step = std::get<UpdateStep>(begun);
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
        t.task = domain::Task::kNone;
        ReadyOutputs outputs = OutputsOf(s, current->spec, obs);
        t.outputs = std::move(outputs.values);
        t.status_reason = std::move(outputs.note);
        t.drop_deleting_resources = true;
        t.resources_state = domain::NodeState::kStarted;
        t.resource_changes = InstanceChanges(obs.instances, domain::NodeState::kStarted);
        t.callback = true;
        return StepResult::Commit(std::move(t));
    }
    if (obs.phase == connectors::Phase::kFailed) {
        return FailUpdate(s, job, step, obs.reason.empty() ? "the update failed on the site" : obs.reason);
    }
    if (obs.phase != connectors::Phase::kInProgress) {
        return StepResult::Commit(UpdateFailed(obs.reason.empty() ? "the update failed on the site" : obs.reason));
    }
    if (s.site_watcher != nullptr) {
        s.site_watcher->Watch(current->handle);  // the site's notifications make the next poll due
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
    const domain::Resource* resource = nullptr;
    for (const auto& r : st.resources) {
        resource = r.id == rid ? &r : resource;
    }
    if (const auto* obs = Value(observed); obs != nullptr && resource != nullptr) {
        if (auto done = ActionDone(*obs, *resource, physical_id, want)) {
            return StepResult::Commit(std::move(*done));
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
