// The deploy step's placement: rank the sites, record the candidates, admit or queue.
#include "place_step.hpp"

#include "admission_cycle_inputs.hpp"
#include "orchestrator/workflow/admission_queue.hpp"
#include "progress.hpp"
#include "queue_position.hpp"
#include "sla_moves.hpp"

#include <algorithm>
#include <chrono>

namespace orch::workflow::steps {
namespace {

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

}  // namespace

StepResult Place(StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec, const Job& job) {
    const auto& d = st.deployment;
    const placement::PlacementRequest request = PlacementRequestFor(s, st, spec);
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

}  // namespace orch::workflow::steps
