// The deploy step's Create of one attempt on the current candidate.
#include "create_attempt.hpp"

#include "iam_client_steps.hpp"
#include "progress.hpp"
#include "provider_tries.hpp"
#include "sla_moves.hpp"

namespace orch::workflow::steps {
namespace {

// An attempt whose Create failed at once: its start is recorded with its end, in that order.
Transition StartedAndFailed(const WorkflowState& st, int seq, Transition t) {
    progress::AttemptStartedBefore(t, st, seq);
    return t;
}

// An attempt that failed for the request's own fault (a user error, not the site's): the
// deployment fails, and what the attempt may have left on its site is removed.
Transition FailedByRequest(const WorkflowState& st, const Attempt& attempt, const std::string& reason) {
    Transition t = FailCreate(st, reason);
    Attempt failed = attempt;
    failed.outcome = domain::AttemptOutcome::kFailed;
    failed.cause = domain::FailureCause::kRequest;
    failed.reason = reason;
    t.finish_attempt = failed;
    t.side_jobs.push_back(NextJob{JobKind::kCleanup, Json{{"seq", attempt.seq}}, {}, false});
    progress::AttemptEnded(t, st, attempt.seq, domain::AttemptOutcome::kFailed, reason);
    return StartedAndFailed(st, attempt.seq, std::move(t));
}

// What the site's connector is asked to create: the template with this attempt's IAM clients
// filled in (`clients`, when the template asks for any), on the candidate's target.
connectors::DeployRequest DeployRequestFor(
    const WorkflowState& st,
    const tosca::DeploymentSpec& spec,
    const placement::Candidate& candidate,
    const std::optional<AttemptTemplate>& clients
) {
    connectors::DeployRequest request;
    request.deployment_id = st.deployment.id;
    request.spec = clients ? &clients->spec : &spec;
    request.target = candidate.target;
    request.placements = candidate.placements;
    request.template_text = clients ? clients->text : st.deployment.template_text;
    if (const auto& owner = st.deployment.owner) {
        request.owner_issuer = owner->issuer;
        request.owner_name = owner->name;
        request.owner_email = owner->email;
    }
    return request;
}

// The site accepted the Create: the attempt runs and is polled from first_poll on.
Transition Created(
    const StepServices& s,
    const Attempt& attempt,
    const placement::Candidate& candidate,
    const connectors::Handle& handle
) {
    Transition t;
    t.task = domain::Task::kDeployer;
    t.physical_id = handle.physical_id;
    t.provider_name = candidate.provider_name;
    t.provider_endpoint = candidate.endpoint;
    t.handle = HandleToJson(handle);
    t.resources_state = domain::NodeState::kCreating;
    Attempt running = attempt;
    running.outcome = domain::AttemptOutcome::kRunning;
    running.handle = HandleToJson(handle);
    t.finish_attempt = running;
    t.next = NextJob{JobKind::kPoll, Json{{"seq", attempt.seq}, {"polls", 0}}, s.options.first_poll, true};
    t.callback = true;
    return t;
}

}  // namespace

StepResult CreateOn(
    StepServices& s,
    const WorkflowState& st,
    const tosca::DeploymentSpec& spec,
    const Job& job,
    const CancelToken& cancel
) {
    const int seq = st.candidate_index;
    const Json& stored = st.candidates[static_cast<std::size_t>(seq)];
    if (job.payload.value(kReserveSeqMember, -1) == seq) {
        return ReserveOnCandidate(s, spec, stored);
    }
    auto candidate = CandidateFromJson(stored);
    if (!candidate) {
        return StepResult::Commit(FailCreate(st, candidate.error().message));
    }
    Attempt attempt;
    attempt.seq = seq;
    attempt.provider_id = candidate->target.site_id;
    attempt.provider_name = candidate->provider_name;
    attempt.service_id = candidate->target.service_id;
    attempt.target = stored;
    // Write-ahead: a delete arriving while Create runs must find this attempt to clean it.
    if (auto started = s.store.StartAttempt(job, job.lease_owner, attempt); !started) {
        return StepResult::Retry(Backoff(job.attempts), started.error().message);
    }
    if (cancel.cancelled()) {
        return StepResult::Commit({});
    }
    if (auto timed_out = ProviderTimedOut(s, st, seq)) {
        return StepResult::Commit(StartedAndFailed(st, seq, NextSite(st, seq, *timed_out)));
    }
    // The clients this attempt's service gets (earlier attempts' deleted first).
    auto clients = ProvisionIamClients(s, st, spec);
    if (!clients) {
        if (clients.error().code != ErrorCode::kInvalidArgument && job.attempts <= s.options.max_transient_retries) {
            return StepResult::Retry(Backoff(job.attempts), "IAM clients: " + clients.error().message);
        }
        return StepResult::Commit(FailedByRequest(st, attempt, "IAM clients: " + clients.error().message));
    }
    connectors::Connector* connector = s.connectors.Find(candidate->target.kind);
    if (connector == nullptr) {
        return StepResult::Commit(StartedAndFailed(
            st,
            seq,
            NextSite(st, seq, "no connector for " + std::string(connectors::TargetKindName(candidate->target.kind)))
        ));
    }
    connectors::DeployRequest request = DeployRequestFor(st, spec, *candidate, *clients);
    auto creds = s.credentials.For(request.target, st.deployment.owner);
    if (!creds) {
        return StepResult::Commit(
            StartedAndFailed(st, seq, NextSite(st, seq, "cannot obtain credentials: " + creds.error().message))
        );
    }
    request.target.credentials = *creds;
    const auto created = connector->Create(request);
    if (const auto* handle = Value(created)) {
        if (s.site_watcher != nullptr) {
            s.site_watcher->Watch(*handle);  // the site's notifications make the first poll due
        }
        Transition t = Created(s, attempt, *candidate, *handle);
        progress::AttemptStarted(
            t, st, seq, s.site_versions != nullptr ? s.site_versions->VersionOf(*connector, request.target) : ""
        );
        return StepResult::Commit(std::move(t));
    }
    return *StepForFailure(s, job, created, [&](const connectors::Failure& failure) {
        if (failure.kind != connectors::FailureKind::kUserError) {
            return StartedAndFailed(st, seq, NextSite(st, seq, failure.message));
        }
        return FailedByRequest(st, attempt, failure.message);
    });
}

}  // namespace orch::workflow::steps
