#pragma once

// What a step tells the people watching a deployment (private to the workflow area): the
// statusReason clients read as free text (short, stable wording) and the events of the durable
// log. Both ride on the step's Transition, so they are written exactly when the step commits
// (never by a worker that lost its lease) and the steps stay free of any store detail.
#include "orchestrator/workflow/deployment_steps.hpp"

#include <string>

namespace orch::workflow::progress {

/// At most this many bytes of a site's or a failure's text in statusReason; events keep it all
/// (bounded by the connector).
inline constexpr std::size_t kMaxReasonBytes = 300;

/// Appends an event; its time is stamped when the step returns (Stamp).
void Note(Transition& t, domain::EventType type, Json data);
/// Sets statusReason and notes the same text as a `progress` event.
void Say(Transition& t, const std::string& reason);

/// "site-a (attempt 2 of 3)": how the statuses name an attempt.
std::string AttemptLabel(const WorkflowState& st, int seq);
/// The site an attempt's candidate names (its provider id), "" when unknown.
std::string SiteOf(const WorkflowState& st, int seq);

/// The placement decided: the sites to try, in order (the candidates' JSON).
void Placed(Transition& t, const Json& candidates);
/// Attempt `seq` was started on its site and Create accepted it; `site_version` (when known) is
/// the site's software version, kept in the event for diagnostics.
void AttemptStarted(Transition& t, const WorkflowState& st, int seq, const std::string& site_version = "");
/// Attempt `seq` was started and failed at once: its start goes before the step's other events.
void AttemptStartedBefore(Transition& t, const WorkflowState& st, int seq);
/// Attempt `seq` ended; `reason` is the site's or the orchestrator's, kept whole in the event.
void AttemptEnded(
    Transition& t, const WorkflowState& st, int seq, domain::AttemptOutcome outcome, const std::string& reason
);
/// A poll found the attempt still in progress; `site_message` is what the site says it waits for
/// (Observation::reason). Says "Polling SITE (attempt k of n)" on the first poll, and notes a
/// `site_message` when the site's message differs from `previous` (the last one noted): a
/// deployment polled for hours writes one event per change, not per poll.
void StillInProgress(
    Transition& t,
    const WorkflowState& st,
    int seq,
    int polls,
    const std::string& site_message,
    const std::string& previous
);

/// Why a deployment waits before it is admitted (docs/admission.md).
enum class WaitCause {
    kCapacity,  ///< no site has what it asks for free now (or its quota is full)
    kQueue,     ///< it would fit, but a request ahead of it in the fair-share order goes first
};
/// The deployment waits: statusReason says `reason` ("queued: ..."), unchanged from the
/// original wording; the event and the log line also say why. Said once per change of the
/// reason (`current` is the statusReason now), not on every retry of the wait.
void Waiting(Transition& t, const std::string& current, const std::string& reason, WaitCause cause);

/// The deployment waited for admission and is admitted now: one progress event ("waiting":
/// "over") saying how long it waited, the pair of the event its wait started with.
void WaitOver(Transition& t, std::chrono::nanoseconds waited);

/// Where a site's log was read up to, kept in the poll job's payload between polls.
struct SiteLogCursor {
    std::size_t size = 0;  ///< bytes of the site's log seen at the last poll
    std::string tail;      ///< its last bytes, to find where the new text starts
};
/// What the site's log `now` adds to what was seen (`cursor`), which is moved to `now`. Sites
/// return their whole log on every poll (IM's contmsg, the Ansible output, both bounded by
/// cutting their start or middle), so the step appends only the new text: what follows the
/// previous end, else what follows the last occurrence of the previous tail, else all of `now`
/// (the site's log was replaced).
std::string NewSiteLog(const std::string& now, SiteLogCursor& cursor);
SiteLogCursor CursorFrom(const Json& payload);
void CursorTo(const SiteLogCursor& cursor, Json& payload);

/// Called once on every committed step result: stamps the events' time from the clock and,
/// when the step moved the deployment to a final status, notes `completed` or `failed` with the
/// real cause (the statusReason the step set), whichever step did it. Each event becomes a
/// timestamped line of the deployment's log, before what the step appends from the site.
void Stamp(Transition& t, const Clock& clock);

/// `text` cut to kMaxReasonBytes on a UTF-8 boundary, with "..." when cut.
std::string Shorten(const std::string& text);

}  // namespace orch::workflow::progress
