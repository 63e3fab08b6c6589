// delete / delete_poll (the deployment's undeploy) and cleanup (a failed attempt, on the side).
#include "create_steps.hpp"
#include "iam_client_steps.hpp"

#include <algorithm>

namespace orch::workflow::steps {
namespace {

constexpr int kRedeleteEvery = 3;  ///< delete polls between repeated Delete calls

const Attempt* FirstUncleaned(const WorkflowState& st) {
    for (const auto& a : st.attempts) {
        if (!a.cleaned) {
            return &a;
        }
    }
    return nullptr;
}

Transition MarkCleaned(const Attempt& a, const std::string& note) {
    Transition t;
    Attempt cleaned = a;
    cleaned.cleaned = true;
    cleaned.handle = nullptr;  // keep the stored handle
    if (!note.empty()) {
        cleaned.reason = a.reason.empty() ? note : a.reason;
    }
    t.finish_attempt = cleaned;
    return t;
}

Transition DeleteFailed(const std::string& reason) {
    Transition t;
    t.status = domain::Status::kDeleteFailed;
    t.status_reason = reason;
    t.task = domain::Task::kNone;
    t.resources_state = domain::NodeState::kError;
    t.callback = true;
    return t;
}

// A step that could not get the site to cooperate: give up on this attempt (force) or fail.
Transition GiveUp(const Attempt& a, bool force, const std::string& reason) {
    if (!force) {
        return DeleteFailed("Error deleting the deployment on " + a.provider_name + ": " + reason);
    }
    ORCH_LOG_WARN("forced delete: some resources may not be removed", {{"seq", a.seq}, {"reason", reason}});
    Transition t = MarkCleaned(a, "forced delete: " + reason);
    t.next = NextJob{JobKind::kDelete, Json{{"force", true}}, {}, true};
    return t;
}

Result<std::pair<connectors::Connector*, connectors::Handle>> Prepare(
    StepServices& s, const WorkflowState& st, const Attempt& a
) {
    ORCH_ASSIGN_OR_RETURN(auto handle, HandleOf(a, st.deployment.id));
    connectors::Connector* connector = s.connectors.Find(handle.target.kind);
    if (connector == nullptr) {
        return Error::Internal("no connector for " + std::string(connectors::TargetKindName(handle.target.kind)));
    }
    ORCH_ASSIGN_OR_RETURN(handle, WithCredentials(s, std::move(handle), st.deployment.owner));
    return std::make_pair(connector, std::move(handle));
}

Result<std::optional<WorkflowState>> LoadFor(StepServices& s, const Job& job) {
    return s.store.Load(job.deployment_id);
}

// The next look at attempt `a`'s site after it was found empty, if one is still due.
std::optional<NextJob> NextVerify(StepServices& s, const Job& job, const Attempt& a) {
    const bool verify = job.payload.value("verify", false);
    const int swept = verify ? job.payload.value("sweeps", 0) : 0;
    // A Create still running elsewhere when we deleted could re-create objects: look once more
    // after the longest a connector call can take.
    const auto age = s.clock.now() - a.started_at;
    if (age < s.options.create_call_timeout && !verify) {
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(s.options.create_call_timeout - age);
        return NextJob{JobKind::kCleanup, Json{{"seq", a.seq}, {"verify", true}, {"sweeps", 0}}, wait, false};
    }
    // The site itself may finish a create long after that (a late Nova server): a few more
    // sweeps, spaced, then none (bounded work per failed attempt).
    if (swept < s.options.late_sweeps) {
        return NextJob{
            JobKind::kCleanup,
            Json{{"seq", a.seq}, {"verify", true}, {"sweeps", swept + 1}},
            s.options.late_sweep_interval,
            false};
    }
    return std::nullopt;
}

// True when an attempt after `a` that is not cleaned runs on `a`'s service: its objects carry
// the names `a`'s would, so sweeping `a`'s site again would delete the live deployment's.
bool LaterOnSameService(const WorkflowState& st, const Attempt& a) {
    return std::any_of(st.attempts.begin(), st.attempts.end(), [&](const Attempt& other) {
        return other.seq > a.seq && !other.cleaned && other.service_id == a.service_id;
    });
}

// Attempt `a` holds nothing on its site any more: mark it cleaned and, on the main line, go on
// with the next attempt (or finish the delete).
Transition Removed(StepServices& s, const Job& job, const Attempt& a, bool main_line) {
    Transition t = MarkCleaned(a, "");
    if (auto verify = NextVerify(s, job, a)) {
        t.side_jobs.push_back(std::move(*verify));
    }
    if (main_line) {
        t.next = NextJob{JobKind::kDelete, Json{{"force", job.payload.value("force", false)}}, {}, true};
    }
    return t;
}

bool Completed(const connectors::ConnectorResult<connectors::Deletion>& deleted) {
    const auto* outcome = Value(deleted);
    return outcome != nullptr && *outcome == connectors::Deletion::kComplete;
}

// The side-job and main-line flavours share the poll logic; `main_line` decides what follows.
StepResult PollGone(StepServices& s, const Job& job, const WorkflowState& st, const Attempt& a, bool main_line) {
    const bool force = job.payload.value("force", false);
    const int polls = job.payload.value("polls", 0);
    auto prepared = Prepare(s, st, a);
    if (!prepared) {
        return StepResult::Commit(main_line ? GiveUp(a, force, prepared.error().message) : MarkCleaned(a, ""));
    }
    auto spec = s.templates.Build(st.deployment.template_text, st.deployment.parameters, st.deployment.parameters);
    const tosca::DeploymentSpec empty;
    const auto observed = prepared->first->Poll(prepared->second, spec ? *spec : empty);
    const auto* obs = Value(observed);
    if (obs != nullptr && obs->phase == connectors::Phase::kGone) {
        return StepResult::Commit(Removed(s, job, a, main_line));
    }
    // A Create still in flight when Delete was sent can make its objects after the Delete
    // (found by the chaos test: a Chronos job posted just after the delete stayed forever), and
    // nobody else removes them; ask the site again every few polls. Delete is idempotent, and its
    // kComplete ends the wait where Poll cannot tell (Slurm lists ended jobs as they were).
    if (polls > 0 && polls % kRedeleteEvery == 0 &&
        Completed(prepared->first->Delete(prepared->second, main_line ? force : true))) {
        return StepResult::Commit(Removed(s, job, a, main_line));
    }
    const auto waited = PollDelay(s.options, polls) * polls;
    if (waited > s.options.delete_wait) {
        const std::string reason = obs != nullptr ? obs->reason : std::get<connectors::Failure>(observed).message;
        return StepResult::Commit(
            main_line ? GiveUp(a, force, "timed out waiting for deletion: " + reason)
                      : MarkCleaned(a, "cleanup gave up: " + reason)
        );
    }
    Transition t;
    Json payload = job.payload;
    payload["polls"] = polls + 1;
    t.next = NextJob{job.kind, payload, PollDelay(s.options, polls + 1), main_line};
    return StepResult::Commit(std::move(t));
}

}  // namespace

StepResult Delete(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto loaded = LoadFor(s, job);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded || (*loaded)->deployment.status != domain::Status::kDeleteInProgress) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const bool force = job.payload.value("force", false);
    const Attempt* a = FirstUncleaned(st);
    if (a == nullptr) {
        // Nothing runs that could use the deployment's IAM clients any more. An issuer that cannot
        // be reached does not hold the delete for long: the client sweep retries (iam_client_sweep).
        if (auto released = ReleaseIamClients(s, st.deployment.id);
            !released && job.attempts <= s.options.max_transient_retries) {
            return StepResult::Retry(Backoff(job.attempts), "IAM clients: " + released.error().message);
        }
        Transition t;
        t.status = domain::Status::kDeleteComplete;
        t.status_reason = "";
        t.task = domain::Task::kNone;
        t.resources_state = domain::NodeState::kDeleted;
        t.handle = Json(nullptr);
        t.callback = true;
        ORCH_LOG_INFO("deployment deleted");
        return StepResult::Commit(std::move(t));
    }
    auto prepared = Prepare(s, st, *a);
    if (!prepared) {
        return StepResult::Commit(GiveUp(*a, force, prepared.error().message));
    }
    const auto deleted = prepared->first->Delete(prepared->second, force);
    if (auto failed = StepForFailure(s, job, deleted, [&](const connectors::Failure& failure) {
            return GiveUp(*a, force, failure.message);
        })) {
        return std::move(*failed);
    }
    if (Completed(deleted)) {
        return StepResult::Commit(Removed(s, job, *a, true));  // nothing left: no poll
    }
    Transition t;
    t.task = domain::Task::kDeployer;
    t.next = NextJob{
        JobKind::kDeletePoll, Json{{"seq", a->seq}, {"force", force}, {"polls", 0}}, s.options.first_poll, true};
    return StepResult::Commit(std::move(t));
}

StepResult DeletePoll(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto loaded = LoadFor(s, job);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded || (*loaded)->deployment.status != domain::Status::kDeleteInProgress) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const int seq = job.payload.value("seq", -1);
    for (const auto& a : st.attempts) {
        if (a.seq == seq) {
            return PollGone(s, job, st, a, true);
        }
    }
    return StepResult::Commit(Then(NextJob{JobKind::kDelete, job.payload, {}, true}));
}

namespace {

StepResult CleanupOnce(StepServices& s, const Job& job) {
    auto loaded = LoadFor(s, job);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const int seq = job.payload.value("seq", -1);
    const Attempt* a = nullptr;
    for (const auto& candidate : st.attempts) {
        if (candidate.seq == seq) {
            a = &candidate;
        }
    }
    if (a == nullptr || (a->cleaned && !job.payload.value("verify", false))) {
        return StepResult::Commit({});
    }
    if (job.payload.value("verify", false) && LaterOnSameService(st, *a)) {
        return StepResult::Commit({});  // that attempt's own polls and delete look after the site
    }
    if (job.payload.value("phase", "") == "poll") {
        return PollGone(s, job, st, *a, false);
    }
    auto prepared = Prepare(s, st, *a);
    if (!prepared) {
        return StepResult::Commit(MarkCleaned(*a, "cleanup impossible: " + prepared.error().message));
    }
    const auto deleted = prepared->first->Delete(prepared->second, true);
    // A cleanup retries whatever the failure (within the budget), then goes on to the checks below.
    if (const auto* failure = std::get_if<connectors::Failure>(&deleted);
        failure != nullptr && job.attempts <= s.options.max_transient_retries) {
        return StepResult::Retry(Backoff(job.attempts), failure->message);
    }
    // What a lost deployment left on a site that is down: tried again until the site answers.
    if (auto waiting = OrphanStillUnreachable(s, job, deleted)) {
        return std::move(*waiting);
    }
    if (Completed(deleted)) {
        return StepResult::Commit(Removed(s, job, *a, false));
    }
    Json payload = job.payload;
    payload["phase"] = "poll";
    payload["polls"] = 0;
    return StepResult::Commit(Then(NextJob{JobKind::kCleanup, payload, s.options.first_poll, false}));
}

}  // namespace

StepResult Cleanup(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    StepResult result = CleanupOnce(s, job);
    const auto then = job.payload.find(kThenDeployMember);
    if (result.retry || then == job.payload.end()) {
        return result;
    }
    // A cleanup the next try on the same service waits for (NextSite): it stays on the main
    // line until the attempt is cleaned, then the deploy goes on. No later sweep of this attempt:
    // the next try's objects carry its names, and that try's own polls and delete see to them.
    Transition& t = result.transition;
    std::erase_if(t.side_jobs, [](const NextJob& side) { return side.kind == JobKind::kCleanup; });
    if (t.next && t.next->kind == JobKind::kCleanup) {
        t.next->workflow = true;
    } else if (!t.next) {
        t.next = NextJob{JobKind::kDeploy, *then, {}, true};
    }
    return result;
}

}  // namespace orch::workflow::steps
