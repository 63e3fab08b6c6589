#include "progress.hpp"

#include "steps_common.hpp"

#include <algorithm>

namespace orch::workflow::progress {
namespace {

bool IsFinal(domain::Status s) {
    switch (s) {
        case domain::Status::kCreateComplete:
        case domain::Status::kUpdateComplete:
        case domain::Status::kDeleteComplete:
        case domain::Status::kCreateFailed:
        case domain::Status::kUpdateFailed:
        case domain::Status::kDeleteFailed:
            return true;
        default:
            return false;
    }
}

bool IsFailure(domain::Status s) {
    return s == domain::Status::kCreateFailed || s == domain::Status::kUpdateFailed ||
           s == domain::Status::kDeleteFailed;
}

const Json* CandidateOf(const WorkflowState& st, int seq) {
    if (!st.candidates.is_array() || seq < 0 || static_cast<std::size_t>(seq) >= st.candidates.size()) {
        return nullptr;
    }
    return &st.candidates[static_cast<std::size_t>(seq)];
}

}  // namespace

std::string Shorten(const std::string& text) {
    if (text.size() <= kMaxReasonBytes) {
        return text;
    }
    std::size_t cut = kMaxReasonBytes;
    // Back to the start of a UTF-8 sequence: continuation bytes are 10xxxxxx.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
        --cut;
    }
    return text.substr(0, cut) + "...";
}

void Note(Transition& t, domain::EventType type, Json data) {
    domain::Event e;
    e.type = type;
    e.data = std::move(data);
    t.events.push_back(std::move(e));
}

void Say(Transition& t, const std::string& reason) {
    t.status_reason = reason;
    Note(t, domain::EventType::kProgress, Json{{"statusReason", reason}});
}

std::string SiteOf(const WorkflowState& st, int seq) {
    if (seq >= 0 && static_cast<std::size_t>(seq) < st.attempts.size()) {
        return st.attempts[static_cast<std::size_t>(seq)].provider_id;
    }
    const Json* c = CandidateOf(st, seq);
    if (c != nullptr) {
        if (auto candidate = CandidateFromJson(*c)) {
            return candidate->target.site_id;
        }
    }
    return "";
}

std::string AttemptLabel(const WorkflowState& st, int seq) {
    return SiteOf(st, seq) + " (attempt " + std::to_string(seq + 1) + " of " +
           std::to_string(std::max(steps::CandidateCount(st), seq + 1)) + ")";
}

void Placed(Transition& t, const Json& candidates) {
    Say(t, "Validated; placing");
    Json sites = Json::array();
    for (const auto& c : candidates) {
        if (auto candidate = CandidateFromJson(c)) {
            sites.push_back(Json{{"site", candidate->target.site_id}, {"provider", candidate->provider_name}});
        }
    }
    Note(t, domain::EventType::kPlacementDecided, Json{{"sites", sites}});
    if (!sites.empty()) {
        t.status_reason = "Placed; deploying on " + sites[0]["site"].get<std::string>() + " (attempt 1 of " +
                          std::to_string(sites.size()) + ")";
    }
}

namespace {

domain::Event StartedEvent(const WorkflowState& st, int seq) {
    domain::Event e;
    e.type = domain::EventType::kAttemptStarted;
    e.data = Json{{"seq", seq + 1}, {"of", steps::CandidateCount(st)}, {"site", SiteOf(st, seq)}};
    return e;
}

}  // namespace

void AttemptStarted(Transition& t, const WorkflowState& st, int seq) {
    t.events.push_back(StartedEvent(st, seq));
    if (!t.status) {
        Say(t, "Deploying on " + AttemptLabel(st, seq));
    }
}

void AttemptStartedBefore(Transition& t, const WorkflowState& st, int seq) {
    t.events.insert(t.events.begin(), StartedEvent(st, seq));
}

void AttemptEnded(
    Transition& t, const WorkflowState& st, int seq, domain::AttemptOutcome outcome, const std::string& reason
) {
    Note(
        t,
        domain::EventType::kAttemptEnded,
        Json{
            {"seq", seq + 1},
            {"site", SiteOf(st, seq)},
            {"outcome", std::string(domain::AttemptOutcomeName(outcome))},
            {"reason", reason}}
    );
    const bool more = seq + 1 < steps::CandidateCount(st);
    if (outcome == domain::AttemptOutcome::kFailed && !t.status && more) {
        Say(t,
            "Attempt " + std::to_string(seq + 1) + " failed on " + SiteOf(st, seq) + ": " + Shorten(reason) +
                "; deploying on " + AttemptLabel(st, seq + 1));
    }
}

void StillInProgress(
    Transition& t,
    const WorkflowState& st,
    int seq,
    int polls,
    const std::string& site_message,
    const std::string& previous
) {
    if (polls == 0 && site_message.empty()) {
        Say(t, "Polling " + AttemptLabel(st, seq));
    }
    if (!site_message.empty() && site_message != previous) {
        Note(t, domain::EventType::kSiteMessage, Json{{"site", SiteOf(st, seq)}, {"message", site_message}});
        t.status_reason = SiteOf(st, seq) + ": " + Shorten(site_message);
    }
}

void Stamp(Transition& t, const Clock& clock) {
    if (t.status && IsFinal(*t.status)) {
        const bool noted = std::any_of(t.events.begin(), t.events.end(), [](const domain::Event& e) {
            return e.type == domain::EventType::kCompleted || e.type == domain::EventType::kFailed;
        });
        if (!noted) {
            Json data{{"status", std::string(domain::StatusName(*t.status))}};
            if (t.status_reason && !t.status_reason->empty()) {
                data["reason"] = *t.status_reason;
            }
            Note(t, IsFailure(*t.status) ? domain::EventType::kFailed : domain::EventType::kCompleted, std::move(data));
        }
    }
    const auto now = clock.now();
    for (auto& e : t.events) {
        e.time = now;
    }
}

}  // namespace orch::workflow::progress
