#include "progress.hpp"

#include "orchestrator/domain/attempt.hpp"
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

void AttemptStarted(Transition& t, const WorkflowState& st, int seq, const std::string& site_version) {
    t.events.push_back(StartedEvent(st, seq));
    if (!site_version.empty()) {
        t.events.back().data["siteVersion"] = site_version;
    }
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

void Waiting(Transition& t, const std::string& current, const std::string& reason, WaitCause cause) {
    t.status_reason = reason;
    if (current == reason) {
        return;  // retried every admission_retry: one event per change, not per retry
    }
    const bool queue = cause == WaitCause::kQueue;
    Note(t, domain::EventType::kProgress, Json{{"statusReason", reason}, {"waiting", queue ? "queue" : "capacity"}});
}

void WaitOver(Transition& t, std::chrono::nanoseconds waited) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(waited).count();
    Note(
        t,
        domain::EventType::kProgress,
        Json{{"statusReason", "Admitted after waiting " + std::to_string(seconds) + " s"}, {"waiting", "over"}}
    );
}

namespace {

constexpr std::size_t kCursorTailBytes = 64;

std::string Hex(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += kDigits[b >> 4U];
        out += kDigits[b & 0x0FU];
    }
    return out;
}

int Nibble(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

// A malformed or overlong tail (the payload is ours, but stored) reads as none: the site's
// whole log is appended once more rather than guessed.
std::string Unhex(const std::string& hex) {
    std::string out;
    if (hex.size() % 2 != 0 || hex.size() > 2 * kCursorTailBytes) {
        return out;
    }
    for (std::size_t i = 0; i < hex.size(); i += 2) {
        const int hi = Nibble(hex[i]);
        const int lo = Nibble(hex[i + 1]);
        if (hi < 0 || lo < 0) {
            return {};
        }
        out += static_cast<char>((hi << 4) | lo);
    }
    return out;
}

// The log line of an event: what a user reads in GET /deployments/{id}/log.
std::string LineOf(const domain::Event& e) {
    const Json& d = e.data;
    const auto text = [&d](const char* key) {
        return d.contains(key) && d[key].is_string() ? d[key].get<std::string>() : std::string();
    };
    const auto number = [&d](const char* key) {
        return d.contains(key) && d[key].is_number_integer() ? std::to_string(d[key].get<std::int64_t>())
                                                             : std::string("?");
    };
    switch (e.type) {
        case domain::EventType::kProgress: {
            const std::string waiting = text("waiting");
            if (waiting.empty()) {
                return text("statusReason");
            }
            if (waiting == "over") {
                return text("statusReason");
            }
            return text("statusReason") +
                   (waiting == "queue" ? " (an earlier request goes first)" : " (no site can take it now)");
        }
        case domain::EventType::kPlacementDecided: {
            std::string sites;
            for (const auto& site : d.value("sites", Json::array())) {
                sites += (sites.empty() ? "" : ", ") + site.value("site", std::string());
            }
            return "Placed: " + (sites.empty() ? std::string("no site") : sites);
        }
        case domain::EventType::kAttemptEnded: {
            const std::string head =
                "Attempt " + std::to_string(d.value("seq", 0)) + " on " + text("site") + " " + text("outcome");
            return text("reason").empty() ? head : head + ": " + text("reason");
        }
        case domain::EventType::kSiteMessage:
            return text("site") + ": " + text("message");
        case domain::EventType::kCompleted:
        case domain::EventType::kFailed:
            return text("reason").empty() ? text("status") : text("status") + ": " + text("reason");
        case domain::EventType::kElasticScale:
            return "Elastic cluster: " + text("action") + " " + text("node") + " from " + number("from") + " to " +
                   number("to") + " workers";
        case domain::EventType::kIdle:
            return "Idle GPUs: " + text("phase") + (text("action").empty() ? "" : " (" + text("action") + ")");
        case domain::EventType::kLeaseWarning:
            return "Lease ends at " + text("expiresAt");
        case domain::EventType::kLeaseExpired:
            return "Lease ended at " + text("expiresAt") + ": " + text("action");
        case domain::EventType::kAttemptStarted:  // the progress event says "Deploying on SITE ..."
        case domain::EventType::kUnknown:
            break;
    }
    return "";
}

}  // namespace

std::string NewSiteLog(const std::string& now, SiteLogCursor& cursor) {
    std::string added;
    const std::string& tail = cursor.tail;
    if (cursor.size >= tail.size() && cursor.size <= now.size() &&
        now.compare(cursor.size - tail.size(), tail.size(), tail) == 0) {
        added = now.substr(cursor.size);  // the usual case: the site's log grew at its end
    } else if (const auto at = tail.empty() ? std::string::npos : now.rfind(tail); at != std::string::npos) {
        added = now.substr(at + tail.size());  // its start (or middle) was cut meanwhile
    } else {
        added = now;
    }
    cursor.size = now.size();
    cursor.tail = now.substr(now.size() - std::min(now.size(), kCursorTailBytes));
    return added;
}

SiteLogCursor CursorFrom(const Json& payload) {
    SiteLogCursor c;
    if (const auto it = payload.find("log_seen"); it != payload.end() && it->is_number_unsigned()) {
        c.size = it->get<std::size_t>();
    }
    if (const auto it = payload.find("log_tail"); it != payload.end() && it->is_string()) {
        c.tail = Unhex(it->get<std::string>());
    }
    return c;
}

void CursorTo(const SiteLogCursor& cursor, Json& payload) {
    payload["log_seen"] = cursor.size;
    // Hex: the tail is cut at any byte and a site's log need not be UTF-8, which JSON text must be.
    payload["log_tail"] = Hex(cursor.tail);
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
    std::string lines;
    for (auto& e : t.events) {
        e.time = now;
        if (const std::string line = LineOf(e); !line.empty()) {
            lines += domain::FormatUtcMillis(now) + " " + line + "\n";
        }
    }
    t.append_log = lines + t.append_log;
}

}  // namespace orch::workflow::progress
