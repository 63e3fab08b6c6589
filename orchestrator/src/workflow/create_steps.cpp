// deploy (place, then create on the current candidate) and poll (until ready or failed).
#include "create_steps.hpp"

#include "admission_cycle_inputs.hpp"
#include "iam_client_steps.hpp"
#include "orchestrator/workflow/admission_queue.hpp"
#include "progress.hpp"
#include "queue_position.hpp"

#include <algorithm>
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

// What a waiting deployment says (statusReason): its place in the queue, the group and what it
// waits for (WaitingFor: "2 × V100"). Clients of the original read statusReason as free text.
std::string QueuedReason(const std::string& group, const std::string& waiting_for, QueuePlace place) {
    return "queued: position " + std::to_string(place.position) + " in group " +
           (group.empty() ? std::string("(none)") : group) + ", waiting for " + waiting_for;
}

// The deployment as a member of the admission queue; it waits since its creation.
WaitingRequest AsWaiting(const WorkflowState& st, const std::string& group, const placement::ResourceTotals& request) {
    WaitingRequest w;
    w.deployment_id = st.deployment.id;
    w.group = group;
    w.queued_at = st.deployment.created_at;
    w.demand = ShareVector{static_cast<double>(request.gpus), request.cpus, static_cast<double>(request.ram_mb)};
    return w;
}

// What admitting the placement reserves; should it not fit after all, the job waits as `self`.
std::optional<Admission> AdmissionOf(
    const StepServices& s,
    const placement::PlacementDecision& decision,
    const placement::Requester& requester,
    const placement::ResourceTotals& request,
    const tosca::DeploymentSpec& spec,
    const WaitingRequest& self,
    QueuePlace place,
    const std::string& current_reason
) {
    Admission admit;
    admit.claims = WithCohortCeiling(
        ClaimsFor(decision, requester, request, spec), s.options.admission_cohorts, decision, requester, request
    );
    if (admit.claims.empty()) {
        return std::nullopt;
    }
    admit.queued_reason = QueuedReason(decision.quota_group, WaitingFor(request, admit.claims, spec), place);
    admit.retry_delay = s.options.admission_retry;
    admit.waiting = WaitingToJson(self);
    // Should the store find it does not fit after all, it writes this wait's event and log line
    // (none when it already waits for the same: its retries write nothing).
    Transition waiting;
    progress::Waiting(waiting, current_reason, admit.queued_reason, progress::WaitCause::kCapacity);
    progress::Stamp(waiting, s.clock);
    admit.queued_events = std::move(waiting.events);
    admit.queued_log = std::move(waiting.append_log);
    return admit;
}

// How long the deployment may wait for admission: its own maxWaitMins, bounded by the
// operator's admission_max_wait (0: no bound of the operator's); zero: until its timeoutMins.
std::chrono::milliseconds MaxWait(const StepServices& s, const WorkflowState& st) {
    const auto bound = s.options.admission_max_wait;
    if (!st.deployment.options.max_wait_mins) {
        return bound;
    }
    const std::chrono::milliseconds asked = std::chrono::minutes(*st.deployment.options.max_wait_mins);
    return bound.count() > 0 ? std::min(asked, bound) : asked;
}

// Nothing fits now but something may later (a quota is full, a site's free GPUs are taken), or
// it fits but a request ahead of it in the fair-share order waits for the same: the deployment
// stays CREATE_IN_PROGRESS, in the queue, and is placed again after admission_retry, until
// its maximum wait (MaxWait; then it fails with the reason it waited for and every site's).
StepResult WaitForAdmission(
    const StepServices& s,
    const WorkflowState& st,
    const placement::PlacementDecision& decision,
    const placement::ResourceTotals& request,
    const tosca::DeploymentSpec& spec,
    const WaitingRequest& self,
    QueuePlace place
) {
    // Only the classes of the claims are read (what it waits for), not whose counters they are.
    const auto claims = ClaimsFor(decision, placement::Requester{}, request, spec);
    const std::string reason = QueuedReason(decision.quota_group, WaitingFor(request, claims, spec), place);
    const auto max_wait = MaxWait(s, st);
    if (max_wait.count() > 0 && s.clock.now() - st.deployment.created_at >= max_wait) {
        return StepResult::Commit(FailCreate(
            st,
            reason + "; not admitted within " + std::to_string(max_wait.count() / 1000) + " s\n" +
                decision.NoCandidateMessage()
        ));
    }
    Transition t;
    progress::Waiting(
        t,
        st.deployment.status_reason,
        reason,
        decision.ranked.empty() ? progress::WaitCause::kCapacity : progress::WaitCause::kQueue
    );
    t.next = NextJob{JobKind::kDeploy, Json{{kWaitingMember, WaitingToJson(self)}}, s.options.admission_retry, true};
    return StepResult::Commit(std::move(t));
}

// The candidate's JSON with the claims its service's SLA makes (kServiceClaimsMember), which
// the move to it reserves (ReserveOnCandidate); none when its SLA limits nothing asked.
Json WithServiceClaims(Json candidate, std::vector<QuotaClaim> claims) {
    std::erase_if(claims, [](const QuotaClaim& claim) { return !OnService(claim.key); });
    if (!claims.empty()) {
        candidate[kServiceClaimsMember] = ClaimsToJson(claims);
    }
    return candidate;
}

// The first commit of the deploy step on a candidate the workflow moved to (NextSite released
// the failed site's SLA claims): it reserves what this candidate's SLA limits, before any
// Create there. Should it not fit, the job waits admission_retry with the queued reason and
// tries again (the deadline still applies); nothing is held on any service meanwhile.
StepResult ReserveOnCandidate(const StepServices& s, const tosca::DeploymentSpec& spec, const Json& stored) {
    Admission admit;
    admit.services_only = true;
    admit.claims = ClaimsFromJson(stored.value(kServiceClaimsMember, Json::array()));
    const std::string group = admit.claims.empty() ? std::string() : admit.claims.front().key.group;
    admit.queued_reason = "queued: waiting for the SLA quota of group " +
                          (group.empty() ? std::string("(none)") : group) + " on " +
                          stored.value("provider_name", std::string("the next site")) + ", for " +
                          WaitingFor(placement::RequestedResources(spec), admit.claims, spec);
    admit.retry_delay = s.options.admission_retry;
    Transition t;
    t.admit = std::move(admit);
    t.next = NextJob{JobKind::kDeploy, Json::object(), {}, true};
    return StepResult::Commit(std::move(t));
}

std::string ServiceOfCandidate(const WorkflowState& st, int index) {
    const Json& candidate = st.candidates[static_cast<std::size_t>(index)];
    return candidate.value("target", Json::object()).value("service_id", std::string());
}

// The tries on one provider (perProviderMaxRetries) share its timeout: it runs from the first.
domain::TimePoint ProviderStartedAt(const WorkflowState& st, int seq) {
    const std::string service = ServiceOfCandidate(st, seq);
    int first = seq;
    while (first > 0 && ServiceOfCandidate(st, first - 1) == service) {
        --first;
    }
    return st.attempts[static_cast<std::size_t>(first)].started_at;
}

// A further try on the provider of the previous attempt once its timeout has passed: the try is
// recorded as failed without creating anything (attempts stay one per candidate, in order).
std::optional<std::string> ProviderTimedOut(StepServices& s, const WorkflowState& st, int seq) {
    if (seq == 0 || ServiceOfCandidate(st, seq - 1) != ServiceOfCandidate(st, seq)) {
        return std::nullopt;
    }
    const int provider_mins =
        st.deployment.options.provider_timeout_mins.value_or(s.options.default_provider_timeout_mins);
    if (s.clock.now() <= ProviderStartedAt(st, seq - 1) + std::chrono::minutes(provider_mins)) {
        return std::nullopt;
    }
    return "Provider timeout during deployment (" + std::to_string(provider_mins) + " minutes), over its tries";
}

StepResult Place(StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec, const Job& job) {
    const auto& d = st.deployment;
    placement::PlacementRequest request;
    request.spec = &spec;
    request.deployment_id = d.id;
    request.limits = {
        d.options.target_provider,
        d.options.target_region,
        d.options.max_providers_retry,
        d.options.provider_timeout_mins,
        d.options.timeout_mins,
        d.options.per_provider_max_retries};
    if (d.owner) {
        request.requester = {d.owner->issuer, d.owner->subject, d.user_group};
        // Catalogues read with the user's token (the Federation Registry) need it; without one
        // they answer what an anonymous caller may see, which placement reports.
        auto token = s.credentials.OwnerAccessToken(d.owner);
        if (token) {
            request.requester.access_token = std::move(token).value();
        }
    } else {
        request.requester.user_group = d.user_group;
    }
    auto decision = s.placer.Place(request);
    if (!decision) {
        if (job.attempts <= s.options.max_transient_retries) {
            return StepResult::Retry(Backoff(job.attempts), "placement: " + decision.error().message);
        }
        return StepResult::Commit(FailCreate(st, "Error filtering Cloud Providers: " + decision.error().message));
    }
    std::size_t limit = decision->ranked.size();
    if (d.options.max_providers_retry) {
        limit = std::min(limit, static_cast<std::size_t>(*d.options.max_providers_retry));
    }
    const auto resources = placement::RequestedResources(spec);
    PlacementRecord placement{decision->ToJsonText(), Json::array()};
    const bool queued = s.options.admission_queue && (limit > 0 || decision->waitable);
    const WaitingRequest self = AsWaiting(st, decision->quota_group, resources);
    QueuePlace place;
    if (queued) {
        // The next admitted is the cycle's choice (the fair-share first without sites' GPUs or
        // cohorts): one that fits now may still wait behind it.
        auto found = PlaceInQueue(
            s.store,
            request.requester.issuer,
            self,
            s.clock.now(),
            s.options.admission_weights,
            s.options.admission_fair_share,
            s.options.admission_half_life,
            s.options.admission_observer,
            CycleSites{&s.options.admission_cohorts, CycleSitesOf(*decision)}
        );
        if (!found) {
            return StepResult::Retry(Backoff(job.attempts), "admission queue: " + found.error().message);
        }
        place = *found;
        CycleSiteFirst(*decision, place.site);
    }
    // perProviderMaxRetries: each provider's tries are consecutive candidates (one attempt each).
    const int tries = d.options.per_provider_max_retries.value_or(1);
    for (std::size_t i = 0; i < limit; ++i) {
        for (int k = 0; k < tries; ++k) {
            placement.candidates.push_back(WithServiceClaims(
                CandidateToJson(decision->ranked[i]), ClaimsFor(*decision, request.requester, resources, spec, i)
            ));
        }
    }
    if (queued && (placement.candidates.empty() || !place.admit)) {
        return WaitForAdmission(s, st, *decision, resources, spec, self, place);
    }
    if (placement.candidates.empty()) {
        Transition t = FailCreate(st, decision->NoCandidateMessage());
        t.placement = std::move(placement);
        return StepResult::Commit(std::move(t));
    }
    Transition t;
    t.admit = AdmissionOf(s, *decision, request.requester, resources, spec, self, place, d.status_reason);
    if (job.payload.contains(kWaitingMember)) {
        progress::WaitOver(t, s.clock.now() - d.created_at);  // it waited (step or store side): now it goes on
    }
    if (s.options.admission_observer != nullptr) {
        const std::chrono::duration<double> waited = s.clock.now() - d.created_at;
        s.options.admission_observer->Admitted(request.requester.issuer, decision->quota_group, waited.count());
    }
    progress::Placed(t, placement.candidates);
    t.placement = std::move(placement);
    t.candidate_index = 0;
    t.next = NextJob{JobKind::kDeploy, Json::object(), {}, true};
    return StepResult::Commit(std::move(t));
}

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
    connectors::DeployRequest request;
    request.deployment_id = st.deployment.id;
    request.spec = *clients ? &(*clients)->spec : &spec;
    request.target = candidate->target;
    request.placements = candidate->placements;
    request.template_text = *clients ? (*clients)->text : st.deployment.template_text;
    if (const auto& owner = st.deployment.owner) {
        request.owner_issuer = owner->issuer;
        request.owner_name = owner->name;
        request.owner_email = owner->email;
    }
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
        Transition t;
        t.task = domain::Task::kDeployer;
        t.physical_id = handle->physical_id;
        t.provider_name = candidate->provider_name;
        t.provider_endpoint = candidate->endpoint;
        t.handle = HandleToJson(*handle);
        t.resources_state = domain::NodeState::kCreating;
        Attempt running = attempt;
        running.outcome = domain::AttemptOutcome::kRunning;
        running.handle = HandleToJson(*handle);
        t.finish_attempt = running;
        t.next = NextJob{JobKind::kPoll, Json{{"seq", seq}, {"polls", 0}}, s.options.first_poll, true};
        t.callback = true;
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
    const int polls = job.payload.value("polls", 0);
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
        case connectors::Phase::kReady: {
            t.status = domain::Status::kCreateComplete;
            t.task = domain::Task::kNone;
            ReadyOutputs outputs = OutputsOf(s, *spec, obs);
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
            return StepResult::Commit(std::move(t));
        }
        case connectors::Phase::kInProgress: {
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
                s.site_watcher->Watch(*with_creds);
            }
            t.next = NextJob{JobKind::kPoll, std::move(next), PollDelay(s.options, polls + 1), true};
            return StepResult::Commit(std::move(t));
        }
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
