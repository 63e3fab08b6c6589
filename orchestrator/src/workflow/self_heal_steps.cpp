// health: a side job per running deployment that polls its site and, when the site or the
// workload is lost, redeploys it on the next suitable site (self-healing) or says it was lost.
// Everything it remembers (since when the site is silent, whether the loss was told) rides in
// its payload, so the watch survives restarts and moves between replicas with the job.
#include "create_steps.hpp"
#include "orchestrator/workflow/admission.hpp"
#include "progress.hpp"

namespace orch::workflow::steps {
namespace {

constexpr const char* kSinceMember = "unreachable_since_ms";
constexpr const char* kMarkedMember = "lost_marked";
constexpr const char* kDownMember = "site_down_since_ms";

std::int64_t NowMs(const StepServices& s) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(s.clock.now().time_since_epoch()).count();
}

enum class Watch { kCheck, kWait, kStop };

// A deployment running on a site is checked; one being changed is looked at again later; one
// being created again (a redeploy: its poll starts a new watch), failed or deleted is not.
Watch WatchFor(domain::Status status) {
    switch (status) {
        case domain::Status::kCreateComplete:
        case domain::Status::kUpdateComplete:
        case domain::Status::kUpdateFailed:
            return Watch::kCheck;
        case domain::Status::kUpdateInProgress:
            return Watch::kWait;
        default:
            return Watch::kStop;
    }
}

NextJob Again(const StepServices& s, Json payload) {
    return NextJob{JobKind::kHealth, std::move(payload), s.options.self_heal.check_interval, false};
}

enum class Health { kRunning, kUnreachable, kLost, kUnknown };

struct Finding {
    Health health = Health::kUnknown;
    std::string why;
};

// The attempt the deployment runs on: the one its candidate index names, once it succeeded.
const Attempt* Running(const WorkflowState& st) {
    for (const auto& a : st.attempts) {
        if (a.seq == st.candidate_index && a.outcome == domain::AttemptOutcome::kSucceeded) {
            return &a;
        }
    }
    return nullptr;
}

Finding Check(StepServices& s, const WorkflowState& st, const Attempt& a) {
    auto handle = HandleOf(a, st.deployment.id);
    if (!handle) {
        return {Health::kUnknown, handle.error().message};
    }
    auto with_creds = WithCredentials(s, *handle, st.deployment.owner);
    connectors::Connector* connector = s.connectors.Find(handle->target.kind);
    if (!with_creds || connector == nullptr) {
        return {Health::kUnknown, with_creds ? "no connector for the site" : with_creds.error().message};
    }
    auto spec = s.templates.Build(st.deployment.template_text, st.deployment.parameters, st.deployment.parameters);
    const tosca::DeploymentSpec empty;
    const auto observed = connector->Poll(*with_creds, spec ? *spec : empty);
    if (const auto* failure = std::get_if<connectors::Failure>(&observed)) {
        // A refused call (an expired token) says nothing about whether the site is there.
        return {
            failure->kind == connectors::FailureKind::kUserError ? Health::kUnknown : Health::kUnreachable,
            failure->message};
    }
    const connectors::Observation& obs = *Value(observed);
    switch (obs.phase) {
        case connectors::Phase::kGone:
            return {Health::kLost, "the deployment disappeared from site " + a.provider_id};
        case connectors::Phase::kFailed:
            // The user's own failure would follow the deployment to any site: not a lost site.
            if (obs.failure == connectors::FailureKind::kUserError) {
                return {Health::kUnknown, obs.reason};
            }
            return {Health::kLost, "site " + a.provider_id + " reports the deployment failed: " + obs.reason};
        case connectors::Phase::kReady:
        case connectors::Phase::kInProgress:
            break;
    }
    return {Health::kRunning, ""};
}

// What the monitoring feed says of the attempt's site: its service's probe when the feed has
// one, else the site's; nullopt when it says nothing (no feed, no series, the feed failing).
std::optional<bool> SiteUp(StepServices& s, const Attempt& a) {
    if (s.site_health == nullptr) {
        return std::nullopt;
    }
    const auto snapshot = s.site_health->Collect({a.provider_id});
    const auto* site = snapshot ? snapshot->FindProvider(a.provider_id) : nullptr;
    if (site == nullptr) {
        return std::nullopt;
    }
    const auto* service = a.service_id.empty() ? nullptr : site->FindService(a.service_id);
    return service != nullptr && service->up ? service->up : site->up;
}

// Counts how long the feed has marked the site down (since when rides in `payload`); only marks
// seen at every check in a row count, so a feed that says nothing starts the count over. The
// reason, once the marks have lasted self_heal.site_down_after.
std::optional<std::string> MarkedDown(StepServices& s, Json& payload, const Attempt& a) {
    const auto threshold = s.options.self_heal.site_down_after;
    if (threshold.count() <= 0 || SiteUp(s, a) != false) {
        payload.erase(kDownMember);
        return std::nullopt;
    }
    const std::int64_t since = payload.value(kDownMember, NowMs(s));
    payload[kDownMember] = since;
    const std::chrono::milliseconds down(NowMs(s) - since);
    if (down < threshold) {
        return std::nullopt;
    }
    return "the monitoring feed has marked site " + a.provider_id + " down for " + std::to_string(down.count() / 1000) +
           " s";
}

// The request's `selfHealing` wins; without it the group's policy from the SLA file, then the
// operator's default.
bool Allowed(const StepServices& s, const domain::Deployment& d) {
    if (d.options.self_healing) {
        return *d.options.self_healing;
    }
    const auto& by_group = s.options.self_heal.enabled_by_group;
    const auto group = by_group.find(d.user_group);
    return group != by_group.end() ? group->second : s.options.self_heal.default_enabled;
}

// Lost but not moved: told once (statusReason, event, callback), then watched as before.
Transition MarkLost(const StepServices& s, const Job& job, const std::string& reason, const std::string& outcome) {
    Json payload = job.payload;
    payload[kMarkedMember] = true;
    Transition t = Then(Again(s, payload));
    if (job.payload.value(kMarkedMember, false)) {
        return t;
    }
    progress::Say(t, progress::Shorten("Self-healing: " + reason) + "; " + outcome);
    t.callback = true;
    ORCH_LOG_WARN("self-healing: deployment lost, not moved", {{"reason", reason}, {"outcome", outcome}});
    return t;
}

// Running again (the site came back before anything moved): what the loss said is withdrawn.
// A count of the monitoring feed's down marks goes on: the site's API answering does not end it.
Transition Recovered(const StepServices& s, const Job& job) {
    Json payload = Json::object();
    if (job.payload.contains(kDownMember)) {
        payload[kDownMember] = job.payload[kDownMember];
    }
    Transition t = Then(Again(s, std::move(payload)));
    if (job.payload.value(kMarkedMember, false)) {
        t.status_reason = "";
        progress::Note(
            t, domain::EventType::kProgress, Json{{"statusReason", ""}, {"selfHealing", "site answers again"}}
        );
        t.callback = true;
    }
    return t;
}

// A redeploy tries each site once (its candidates are built below), so the explanation names no
// per-provider tries.
placement::PlacementRequest RequestFor(StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec) {
    placement::PlacementRequest request = PlacementRequestFor(s, st, spec);
    request.limits.per_provider_max_retries.reset();
    return request;
}

// The candidates of the redeploy: those already tried (attempt seq is a candidate index, so
// they stay where they are), then the new placement's, without the lost site.
Json CandidatesAfter(const WorkflowState& st, const Attempt& lost, const placement::PlacementDecision& decision) {
    Json candidates = Json::array();
    for (int i = 0; i <= lost.seq && i < CandidateCount(st); ++i) {
        candidates.push_back(st.candidates[static_cast<std::size_t>(i)]);
    }
    std::size_t limit = decision.ranked.size();
    if (st.deployment.options.max_providers_retry) {
        limit = std::min(limit, static_cast<std::size_t>(*st.deployment.options.max_providers_retry));
    }
    std::size_t added = 0;
    for (const auto& c : decision.ranked) {
        if (added < limit && c.target.site_id != lost.provider_id) {
            candidates.push_back(CandidateToJson(c));
            ++added;
        }
    }
    return candidates;
}

// The redeploy goes through admission again (docs/lifecycle.md, "Quotas"): what the deployment
// holds (in use on the lost site) is released and the new site's claims are reserved, in the
// commit's transaction. Always set, even without claims, so the lost site's are given back.
// When the claims do not fit, nothing of the redeploy is written: the deployment stays where it
// was, says what it waits for, and the check runs again after admission_retry.
Admission ReadmissionOf(
    const StepServices& s,
    const WorkflowState& st,
    const placement::PlacementDecision& decision,
    const tosca::DeploymentSpec& spec,
    const Attempt& lost,
    const std::string& why
) {
    std::size_t first_new = 0;
    while (first_new < decision.ranked.size() && decision.ranked[first_new].target.site_id == lost.provider_id) {
        ++first_new;
    }
    placement::Requester requester;
    requester.user_group = st.deployment.user_group;
    if (st.deployment.owner) {
        requester.issuer = st.deployment.owner->issuer;
        requester.subject = st.deployment.owner->subject;
    }
    const auto resources = placement::RequestedResources(spec);
    Admission admit;
    admit.claims = ClaimsFor(decision, requester, resources, spec, first_new);
    const std::string group = decision.quota_group.empty() ? std::string("(none)") : decision.quota_group;
    admit.queued_reason = progress::Shorten("Self-healing: " + why) + "; redeploy queued in group " + group +
                          ", waiting for " + WaitingFor(resources, admit.claims, spec);
    admit.retry_delay = s.options.admission_retry;
    return admit;
}

StepResult Redeploy(
    StepServices& s, const Job& job, const WorkflowState& st, const Attempt& lost, const std::string& why
) {
    auto spec = s.templates.Build(st.deployment.template_text, st.deployment.parameters, st.deployment.parameters);
    if (!spec) {
        return StepResult::Commit(MarkLost(s, job, why, "cannot redeploy: " + spec.error().message));
    }
    auto decision = s.placer.Place(RequestFor(s, st, *spec));
    if (!decision) {
        return StepResult::Retry(Backoff(job.attempts), "self-healing placement: " + decision.error().message);
    }
    Json candidates = CandidatesAfter(st, lost, *decision);
    const int next = std::min(lost.seq + 1, CandidateCount(st));
    if (static_cast<int>(candidates.size()) <= next) {
        return StepResult::Commit(
            MarkLost(s, job, why, "no other suitable site; looking again at the next health check")
        );
    }
    Transition t;
    t.status = domain::Status::kCreateInProgress;
    t.task = domain::Task::kNone;
    Attempt ended;
    ended.seq = lost.seq;
    ended.outcome = domain::AttemptOutcome::kFailed;
    ended.cause = domain::FailureCause::kSite;
    ended.reason = "lost: " + why;
    t.finish_attempt = ended;
    progress::AttemptEnded(t, st, lost.seq, ended.outcome, ended.reason);
    progress::Say(t, progress::Shorten("Self-healing: " + why) + "; redeploying on the next suitable site");
    t.placement = PlacementRecord{decision->ToJsonText(), std::move(candidates)};
    t.candidate_index = next;
    t.physical_id = "";
    t.handle = Json(nullptr);
    t.resources_state = domain::NodeState::kInitial;
    if (st.deployment.options.timeout_mins) {
        t.deadline = s.clock.now() + std::chrono::minutes(*st.deployment.options.timeout_mins);
    }
    // The old site's objects are leftovers: deleted once it answers again (OrphanStillUnreachable).
    t.side_jobs.push_back(NextJob{
        JobKind::kCleanup, Json{{"seq", lost.seq}, {"orphan", true}, {"since_ms", NowMs(s)}}, {}, false});
    t.next = NextJob{JobKind::kDeploy, Json::object(), {}, true};
    t.callback = true;
    t.admit = ReadmissionOf(s, st, *decision, *spec, lost, why);
    ORCH_LOG_WARN("self-healing: deployment lost, redeploying", {{"seq", lost.seq}, {"reason", why}});
    return StepResult::Commit(std::move(t));
}

}  // namespace

std::optional<NextJob> WatchHealth(const StepOptions& o) {
    if (o.self_heal.check_interval.count() <= 0) {
        return std::nullopt;
    }
    return NextJob{JobKind::kHealth, Json::object(), o.self_heal.check_interval, false};
}

StepResult Health(StepServices& s, const Job& job, const CancelToken& cancel) {
    (void)cancel;
    auto loaded = s.store.Load(job.deployment_id);
    if (!loaded) {
        return StepResult::Retry(Backoff(job.attempts), loaded.error().message);
    }
    if (!*loaded || s.options.self_heal.check_interval.count() <= 0) {
        return StepResult::Commit({});
    }
    const WorkflowState& st = **loaded;
    const Watch watch = WatchFor(st.deployment.status);
    if (watch == Watch::kStop) {
        return StepResult::Commit({});
    }
    const Attempt* running = Running(st);
    if (watch == Watch::kWait || running == nullptr) {
        return StepResult::Commit(Then(Again(s, job.payload)));
    }
    Job watched = job;  // its payload carries the monitoring feed's count to the next check
    if (!watched.payload.is_object()) {
        watched.payload = Json::object();
    }
    const auto marked_down = MarkedDown(s, watched.payload, *running);
    Finding found = Check(s, st, *running);
    if (marked_down && found.health != Health::kLost) {
        found = {Health::kLost, *marked_down};
    }
    switch (found.health) {
        case Health::kRunning:
            return StepResult::Commit(Recovered(s, watched));
        case Health::kUnknown:
            return StepResult::Commit(Then(Again(s, watched.payload)));
        case Health::kUnreachable: {
            const std::int64_t since = watched.payload.value(kSinceMember, NowMs(s));
            const std::chrono::milliseconds silent(NowMs(s) - since);
            if (silent < s.options.self_heal.lost_after) {
                Json payload = watched.payload;
                payload[kSinceMember] = since;
                return StepResult::Commit(Then(Again(s, std::move(payload))));
            }
            found.why = "site " + running->provider_id + " has not answered for " +
                        std::to_string(silent.count() / 1000) + " s (" + found.why + ")";
            break;
        }
        case Health::kLost:
            break;
    }
    if (!Allowed(s, st.deployment)) {
        return StepResult::Commit(
            MarkLost(s, watched, found.why, "the deployment is not moved (selfHealing is not enabled)")
        );
    }
    return Redeploy(s, watched, st, *running, found.why);
}

std::optional<StepResult> OrphanStillUnreachable(
    const StepServices& s, const Job& job, const connectors::ConnectorResult<connectors::Deletion>& deleted
) {
    const auto* failure = std::get_if<connectors::Failure>(&deleted);
    if (failure == nullptr || !job.payload.value("orphan", false)) {
        return std::nullopt;
    }
    const std::int64_t since = job.payload.value("since_ms", NowMs(s));
    if (std::chrono::milliseconds(NowMs(s) - since) > s.options.self_heal.cleanup_max_age) {
        return std::nullopt;  // the site never came back: the usual checks give up on it
    }
    return StepResult::Retry(
        Backoff(job.attempts, s.options.self_heal.cleanup_max_backoff),
        "leftovers of a lost deployment, site not answering: " + failure->message
    );
}

}  // namespace orch::workflow::steps
