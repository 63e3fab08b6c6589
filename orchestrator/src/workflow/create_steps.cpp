// deploy (place, then create on the current candidate) and poll (until ready or failed).
#include "create_steps.hpp"

#include "create_attempt.hpp"
#include "place_step.hpp"
#include "progress.hpp"
#include "provider_tries.hpp"

#include <chrono>

namespace orch::workflow::steps {
namespace {

bool PastDeadline(const StepServices& s, const WorkflowState& st) {
    return st.deadline && s.clock.now() > *st.deadline;
}

// A user error met while polling ends the deployment, but the attempt that met it is still
// finished (its site and reason kept for statusReason and the placement record) and what it
// left on the site is removed, unless the user asked to keep the last attempt.
Transition FailOnAttempt(const WorkflowState& st, int seq, const std::string& reason) {
    Transition t = FailCreate(st, reason);
    Attempt failed;
    failed.seq = seq;
    failed.outcome = domain::AttemptOutcome::kFailed;
    failed.cause = domain::FailureCause::kRequest;
    failed.reason = reason;
    t.finish_attempt = failed;
    if (!st.deployment.options.keep_last_attempt) {
        t.side_jobs.push_back(NextJob{JobKind::kCleanup, Json{{"seq", seq}}, {}, false});
    }
    progress::AttemptEnded(t, st, seq, domain::AttemptOutcome::kFailed, reason);
    return t;
}

// The site reports the deployment ready: its outputs, its resources started, the attempt
// succeeded, and the health watch begins (when self-healing watches).
Transition Ready(
    StepServices& s,
    const WorkflowState& st,
    const tosca::DeploymentSpec& spec,
    const connectors::Observation& obs,
    int seq,
    Transition t
) {
    t.status = domain::Status::kCreateComplete;
    t.task = domain::Task::kNone;
    ReadyOutputs outputs = OutputsOf(s, spec, obs);
    t.outputs = std::move(outputs.values);
    t.status_reason = std::move(outputs.note);
    t.resources_state = domain::NodeState::kStarted;
    t.resource_changes = InstanceChanges(obs.instances, domain::NodeState::kStarted);
    Attempt done;
    done.seq = seq;
    done.outcome = domain::AttemptOutcome::kSucceeded;
    t.finish_attempt = done;
    progress::AttemptEnded(t, st, seq, done.outcome, "");
    t.callback = true;
    if (auto watch = WatchHealth(s.options)) {
        t.side_jobs.push_back(std::move(*watch));
    }
    return t;
}

// What a poll of attempt `seq` observed on its site (through `handle`).
struct Polled {
    int seq;
    const connectors::Observation& obs;
    const connectors::Handle& handle;
};

// The site is still creating: the next poll is queued (the site's notifications may make it due
// sooner), unless the application has said it cannot start for crash_loop_timeout: then the
// next site.
StepResult StillCreating(
    StepServices& s,
    const WorkflowState& st,
    const Job& job,
    const Polled& polled,
    progress::SiteLogCursor& cursor,
    Transition t
) {
    const int seq = polled.seq;
    const connectors::Observation& obs = polled.obs;
    const int polls = job.payload.value("polls", 0);
    Json next{{"seq", seq}, {"polls", polls + 1}};
    if (obs.cannot_start) {
        // Since when the site has said so, across polls (and replicas: it is in the job).
        const auto now_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now().time_since_epoch()).count();
        const std::int64_t since = job.payload.value("cannot_start_since_ms", now_ms);
        if (std::chrono::milliseconds(now_ms - since) >= s.options.crash_loop_timeout) {
            return StepResult::Commit(
                NextSite(st, seq, "The application cannot start: " + obs.site_message.value_or(obs.reason))
            );
        }
        next["cannot_start_since_ms"] = since;
    }
    t.resource_changes = InstanceChanges(obs.instances, std::nullopt);
    // What the site said last rides in the poll's payload: one event per change.
    const std::string said = job.payload.value("said", std::string());
    const std::string message = obs.site_message.value_or(obs.reason);
    progress::StillInProgress(t, st, seq, polls, message, said);
    next["said"] = message.empty() ? said : message;
    progress::CursorTo(cursor, next);
    if (s.site_watcher != nullptr) {
        s.site_watcher->Watch(polled.handle);
    }
    t.next = NextJob{JobKind::kPoll, std::move(next), PollDelay(s.options, polls + 1), true};
    return StepResult::Commit(std::move(t));
}

}  // namespace

StepResult Deploy(StepServices& s, const Job& job, const CancelToken& cancel) {
    auto loaded = s.store.Load(job.deployment_id);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded || (*loaded)->deployment.status != domain::Status::kCreateInProgress) {
        return StepResult::Commit({});  // deleted or moved on meanwhile: nothing to do
    }
    const WorkflowState& st = **loaded;
    if (PastDeadline(s, st)) {
        return StepResult::Commit(FailCreate(st, std::string(kTimeoutReason)));
    }
    auto spec = s.templates.Build(st.deployment.template_text, st.deployment.parameters, st.deployment.parameters);
    if (!spec) {
        return StepResult::Commit(FailCreate(st, spec.error().message));
    }
    if (st.candidates.is_null()) {
        return Place(s, st, *spec, job);
    }
    if (st.candidate_index >= CandidateCount(st)) {
        return StepResult::Commit(FailCreate(st, ExhaustedMessage(st)));
    }
    return CreateOn(s, st, *spec, job, cancel);
}

StepResult Poll(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto loaded = s.store.Load(job.deployment_id);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded || (*loaded)->deployment.status != domain::Status::kCreateInProgress) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const int seq = job.payload.value("seq", st.candidate_index);
    if (seq < 0 || static_cast<std::size_t>(seq) >= st.attempts.size()) {
        return StepResult::Commit(FailCreate(st, "internal: attempt " + std::to_string(seq) + " not found"));
    }
    const Attempt& attempt = st.attempts[static_cast<std::size_t>(seq)];
    if (PastDeadline(s, st)) {
        Transition t = FailCreate(st, std::string(kTimeoutReason));
        return StepResult::Commit(std::move(t));
    }
    const int provider_mins =
        st.deployment.options.provider_timeout_mins.value_or(s.options.default_provider_timeout_mins);
    if (s.clock.now() > ProviderStartedAt(st, seq) + std::chrono::minutes(provider_mins)) {
        return StepResult::Commit(
            NextSite(st, seq, "Provider timeout during deployment (" + std::to_string(provider_mins) + " minutes)")
        );
    }
    auto spec = s.templates.Build(st.deployment.template_text, st.deployment.parameters, st.deployment.parameters);
    if (!spec) {
        return StepResult::Commit(FailCreate(st, spec.error().message));
    }
    auto handle = HandleOf(attempt, st.deployment.id);
    if (!handle) {
        return StepResult::Commit(NextSite(st, seq, handle.error().message));
    }
    auto with_creds = WithCredentials(s, *handle, st.deployment.owner);
    connectors::Connector* connector = s.connectors.Find(handle->target.kind);
    if (!with_creds || connector == nullptr) {
        return StepResult::Commit(
            NextSite(st, seq, with_creds ? "no connector for the site" : with_creds.error().message)
        );
    }
    const auto observed = connector->Poll(*with_creds, *spec);
    if (auto failed = StepForFailure(s, job, observed, [&](const connectors::Failure& failure) {
            return failure.kind == connectors::FailureKind::kUserError ? FailOnAttempt(st, seq, failure.message)
                                                                       : NextSite(st, seq, failure.message);
        })) {
        return std::move(*failed);
    }
    const connectors::Observation& obs = *Value(observed);
    Transition t;
    // The site's whole log comes on every poll: only what it added goes to the deployment's.
    progress::SiteLogCursor cursor = progress::CursorFrom(job.payload);
    t.append_log = progress::NewSiteLog(obs.log, cursor);
    switch (obs.phase) {
        case connectors::Phase::kReady:
            return StepResult::Commit(Ready(s, st, *spec, obs, seq, std::move(t)));
        case connectors::Phase::kInProgress:
            return StillCreating(s, st, job, {seq, obs, *with_creds}, cursor, std::move(t));
        case connectors::Phase::kFailed:
            if (obs.failure == connectors::FailureKind::kUserError) {
                return StepResult::Commit(FailOnAttempt(st, seq, obs.reason));
            }
            return StepResult::Commit(NextSite(st, seq, obs.reason));
        case connectors::Phase::kGone:
            break;
    }
    return StepResult::Commit(NextSite(st, seq, "the deployment disappeared from the site"));
}

}  // namespace orch::workflow::steps
