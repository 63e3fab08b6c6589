#include "steps_common.hpp"

#include "progress.hpp"

namespace orch::workflow::steps {

Result<connectors::Handle> HandleOf(const Attempt& attempt, const std::string& deployment_id) {
    if (attempt.handle.is_object()) {
        return HandleFromJson(attempt.handle);
    }
    ORCH_ASSIGN_OR_RETURN(const auto candidate, CandidateFromJson(attempt.target));
    connectors::Handle h;
    h.deployment_id = deployment_id;
    h.target = candidate.target;
    return h;
}

Result<connectors::Handle> WithCredentials(
    StepServices& s, connectors::Handle handle, const std::optional<domain::Owner>& owner
) {
    ORCH_ASSIGN_OR_RETURN(handle.target.credentials, s.credentials.For(handle.target, owner));
    return handle;
}

Transition FailCreate(const WorkflowState& st, const std::string& reason) {
    (void)st;
    Transition t;
    t.status = domain::Status::kCreateFailed;
    t.status_reason = reason;
    t.task = domain::Task::kNone;
    t.resources_state = domain::NodeState::kError;
    t.callback = true;
    return t;
}

int CandidateCount(const WorkflowState& st) {
    return st.candidates.is_array() ? static_cast<int>(st.candidates.size()) : 0;
}

std::string ServiceOfCandidate(const WorkflowState& st, int index) {
    const Json& candidate = st.candidates[static_cast<std::size_t>(index)];
    return candidate.value("target", Json::object()).value("service_id", std::string());
}

placement::PlacementRequest PlacementRequestFor(
    StepServices& s, const WorkflowState& st, const tosca::DeploymentSpec& spec
) {
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
    request.requester.user_group = d.user_group;
    if (d.owner) {
        request.requester.issuer = d.owner->issuer;
        request.requester.subject = d.owner->subject;
        if (auto token = s.credentials.OwnerAccessToken(d.owner)) {
            request.requester.access_token = std::move(token).value();
        }
    }
    return request;
}

Transition NextSite(const WorkflowState& st, int seq, const std::string& reason) {
    Transition t;
    Attempt finished;
    finished.seq = seq;
    finished.outcome = domain::AttemptOutcome::kFailed;
    finished.reason = reason;
    t.finish_attempt = finished;
    t.candidate_index = seq + 1;
    t.physical_id = "";
    t.handle = Json(nullptr);
    t.task = domain::Task::kNone;
    t.resources_state = domain::NodeState::kInitial;
    const bool last = seq + 1 >= CandidateCount(st);
    const bool clean_first = !last && ServiceOfCandidate(st, seq) == ServiceOfCandidate(st, seq + 1);
    if (!last && !clean_first) {
        t.side_jobs.push_back(NextJob{JobKind::kCleanup, Json{{"seq", seq}}, {}, false});
    } else if (last && !st.deployment.options.keep_last_attempt) {
        t.side_jobs.push_back(NextJob{JobKind::kCleanup, Json{{"seq", seq}}, {}, false});
    }
    // The failed site's SLA claims go with the attempt (an empty move: nothing to fit); the next
    // site's are reserved by the next deploy step, before its Create (ReserveOnCandidate), so
    // the deployment never holds two services' claims and never creates unreserved.
    Admission release;
    release.services_only = true;
    t.admit = std::move(release);
    Json payload = Json::object();
    if (!last && st.candidates[static_cast<std::size_t>(seq + 1)].contains(kServiceClaimsMember)) {
        payload[kReserveSeqMember] = seq + 1;
    }
    if (clean_first) {
        // Another try on the same service (perProviderMaxRetries) makes objects under this try's
        // names: they are removed first, on the main line, and the deploy follows (Cleanup).
        t.next = NextJob{JobKind::kCleanup, Json{{"seq", seq}, {kThenDeployMember, std::move(payload)}}, {}, true};
    } else {
        t.next = NextJob{JobKind::kDeploy, std::move(payload), {}, true};
    }
    progress::AttemptEnded(t, st, seq, domain::AttemptOutcome::kFailed, reason);
    ORCH_LOG_WARN("deployment attempt failed; trying the next site", {{"seq", seq}, {"reason", reason}});
    return t;
}

std::string ExhaustedMessage(const WorkflowState& st) {
    std::string out = "Retries on cloud providers exhausted. Error list is:\n";
    for (const auto& a : st.attempts) {
        out += std::string(64, '-') + "\nCloud Provider " + a.provider_id + "\nCloud Provider Service " + a.service_id +
               "\n\n" + (a.reason.empty() ? "(no reason recorded)" : a.reason) + "\n";
    }
    return out;
}

std::vector<ResourceChange> InstanceChanges(
    const std::vector<connectors::InstanceState>& instances, std::optional<domain::NodeState> state
) {
    std::vector<ResourceChange> out;
    for (const auto& inst : instances) {
        ResourceChange c;
        c.node = inst.node;
        c.index = inst.index;
        if (!inst.physical_id.empty()) {
            c.physical_id = inst.physical_id;
        }
        // kUnknown is nullopt: the row keeps the state it had (an unrecognised provider word
        // must not read as progress).
        c.state = state ? state : connectors::NodeStateOf(inst.state);
        if (inst.attributes.is_object() && !inst.attributes.empty()) {
            // The dashboard reads VirtualMachineInfo as a JSON *string* with RADL-style vmProperties.
            Json system = {
                {"class", "system"},
                {"id", inst.node},
                {"instance_id", inst.physical_id},
                {"state", std::string(connectors::InstanceStatusName(inst.state))}};
            for (const auto& [key, value] : inst.attributes.items()) {
                system[key] = value;
            }
            c.metadata = Json{{"VirtualMachineInfo", Json{{"vmProperties", Json::array({system})}}.dump()}};
        }
        out.push_back(std::move(c));
    }
    return out;
}

ReadyOutputs OutputsOf(StepServices& s, const tosca::DeploymentSpec& spec, const connectors::Observation& obs) {
    ReadyOutputs out;
    tosca::OutputValues evaluated = s.resolve_outputs ? s.resolve_outputs(spec, obs.attributes) : tosca::OutputValues{};
    out.values = evaluated.values.is_object() ? std::move(evaluated.values) : Json::object();
    if (obs.outputs.is_object()) {
        out.values.update(obs.outputs);
    }
    // A handful of notes is enough to say what is missing; the template may have many outputs.
    constexpr int kMaxNotes = 5;
    int shown = 0;
    int more = 0;
    for (const auto& [name, why] : evaluated.notes) {
        if (obs.outputs.is_object() && obs.outputs.contains(name)) {
            continue;  // the site gave it a value
        }
        if (shown == kMaxNotes) {
            ++more;
            continue;
        }
        out.note += (shown++ == 0 ? "Outputs without a value: " : "; ") + name + " (" + why + ")";
    }
    if (more > 0) {
        out.note += "; and " + std::to_string(more) + " more";
    }
    return out;
}

}  // namespace orch::workflow::steps
